// Runs inside a local sandbox's jail, before its command: listens on 127.0.0.1 at each allowed endpoint's
// port and pipes every connection into that endpoint's Unix socket, which the worker forwards to the real
// host:port. Then runs the command and exits as it does. Plain JavaScript: started with the host's node.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { createConnection, createServer } from 'node:net';

const separator = process.argv.indexOf('--');
const routes = JSON.parse(process.argv[2]);
const command = process.argv.slice(separator + 1);

await Promise.all(
  routes.map(
    ({ port, socket }) =>
      new Promise((resolve, reject) => {
        const server = createServer((inside) => {
          const outside = createConnection(socket);
          inside.pipe(outside).pipe(inside);
          inside.on('error', () => outside.destroy());
          outside.on('error', () => inside.destroy());
        });
        server.on('error', reject);
        server.listen(port, '127.0.0.1', resolve);
        server.unref();
      }),
  ),
).catch((error) => {
  process.stderr.write(`gymflow sandbox network: cannot listen for an allowed endpoint: ${error.message}\n`);
  process.exit(125);
});

const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
child.on('error', (error) => {
  process.stderr.write(`${command[0]}: ${error.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
