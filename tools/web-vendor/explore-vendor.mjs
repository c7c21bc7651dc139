// Entry of api/static/explore/vendor.min.js: the graph libraries the explorer page uses,
// bundled into one IIFE that sets window.KGVendor (the page loads no module from elsewhere).
// KaTeX is not bundled: it comes with its own CSS and fonts, copied by build.sh into katex/.
import Graph from 'graphology';
import louvain from 'graphology-communities-louvain';
import { circular } from 'graphology-layout';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import noverlap from 'graphology-layout-noverlap';
import Sigma from 'sigma';

window.KGVendor = { Graph, Sigma, forceAtlas2, noverlap, circular, louvain };
