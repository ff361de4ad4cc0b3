// For comparison with undici-get.mjs: the same GET with Node's own HTTP client.
import http from 'node:http';

const [url, token] = process.argv.slice(2);
http.get(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
  let body = '';
  res.on('data', (c) => {
    body += c;
  });
  res.on('end', () => {
    process.stdout.write(body);
    process.exit(0);
  });
});
