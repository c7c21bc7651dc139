#!/usr/bin/env bash
# Rebuilds the vendored browser files under api/static/vendor/ from the pinned packages here.
# Development-time only: the npm work happens in a scratch folder, never in the repo, and only
# the built files and their licences are committed (served by kg serve; no CDN at run time).
#
# Usage: tools/web-vendor/build.sh [SCRATCH_DIR]   (default: a new temporary folder)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
static="$here/../../api/static/vendor"
scratch="${1:-$(mktemp -d)}"
cp "$here/package.json" "$here/package-lock.json" "$here/explore-vendor.mjs" "$here/collect-licenses.mjs" "$scratch/"
cd "$scratch"
npm ci --no-audit --no-fund

g="$static/graphiql"
mkdir -p "$g"
cp node_modules/react/umd/react.production.min.js "$g/"
cp node_modules/react-dom/umd/react-dom.production.min.js "$g/"
cp node_modules/graphiql/graphiql.min.js node_modules/graphiql/graphiql.min.css "$g/"
cp node_modules/@graphiql/plugin-explorer/dist/index.umd.js "$g/plugin-explorer.umd.js"
cp node_modules/@graphiql/plugin-explorer/dist/style.css "$g/plugin-explorer.css"
node collect-licenses.mjs "$g/LICENSES.txt" react react-dom graphiql @graphiql/plugin-explorer

e="$static/explore"
mkdir -p "$e"
node_modules/.bin/esbuild explore-vendor.mjs --bundle --minify --format=iife --target=es2020 \
  --legal-comments=none --metafile=meta.json --outfile="$e/vendor.min.js"
# KaTeX (formulas in titles, abstracts and evidence): its own minified script, the auto-render
# extension, the CSS and the woff2 fonts only (every browser the page supports reads woff2; the
# CSS's woff/ttf fallbacks are never fetched by them).
k="$e/katex"
rm -rf "$k"
mkdir -p "$k/fonts"
cp node_modules/katex/dist/katex.min.js node_modules/katex/dist/katex.min.css "$k/"
cp node_modules/katex/dist/contrib/auto-render.min.js "$k/"
cp node_modules/katex/dist/fonts/*.woff2 "$k/fonts/"
node collect-licenses.mjs "$e/LICENSES.txt" --metafile meta.json katex
echo "built into $static (scratch: $scratch)"
