// Entry of api/static/explore/vendor.min.js: the graph libraries the explorer page uses,
// bundled into one IIFE that sets window.KGVendor (the page loads no module from elsewhere).
import Graph from 'graphology';
import { circular } from 'graphology-layout';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import noverlap from 'graphology-layout-noverlap';
import Sigma from 'sigma';

window.KGVendor = { Graph, Sigma, forceAtlas2, noverlap, circular };
