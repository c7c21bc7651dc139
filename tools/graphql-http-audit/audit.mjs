// Runs graphql-http's server audits (the GraphQL-over-HTTP spec's MUST/SHOULD/MAY checks)
// against a running GraphQL endpoint and prints one line per audit plus a summary.
//
// Usage: node audit.mjs http://127.0.0.1:8000/graphql [--json]
// Exit status: 0 when every audit is ok, 1 when any warns or fails, 2 on bad usage.
import { serverAudits } from 'graphql-http';

const args = process.argv.slice(2);
const url = args.find((a) => !a.startsWith('--'));
if (!url) {
  console.error('usage: node audit.mjs <graphql url> [--json]');
  process.exit(2);
}

const results = [];
for (const audit of serverAudits({ url, fetchFn: fetch })) {
  // One at a time: a small server on a shared machine answers them all in a few seconds.
  const result = await audit.fn();
  let detail = '';
  if (result.status !== 'ok') {
    detail = result.reason;
    if (result.response) {
      const body = await result.response.text().catch(() => "(body already read)");
      detail += ` [HTTP ${result.response.status} ${result.response.headers.get('content-type')}: ${body.slice(0, 300)}]`;
    }
  }
  results.push({ id: result.id, name: result.name, status: result.status, detail });
}

const count = (s) => results.filter((r) => r.status === s).length;
const summary = { ok: count('ok'), warn: count('warn'), error: count('error'), total: results.length };
if (args.includes('--json')) {
  console.log(JSON.stringify({ summary, results }, null, 2));
} else {
  for (const r of results) {
    console.log(`${r.status.padEnd(5)} ${r.id} ${r.name}${r.detail ? `\n      ${r.detail}` : ''}`);
  }
  console.log(`graphql-http audit: ${summary.ok} ok, ${summary.warn} warn, ${summary.error} error (${summary.total} audits)`);
}
process.exit(summary.warn || summary.error ? 1 : 0);
