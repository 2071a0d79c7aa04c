// A process skill in Node.js: aiagent sends `initialize`, then `tool/call`; the skill asks
// aiagent for files with `host/read_file` (aiagent checks the file:read permission).
"use strict";
const readline = require("readline");

const BACKGROUND = /\b(dev|serve|server|start|watch|storybook|preview)\b|--watch\b|--serve\b|nodemon|webpack-dev-server|vite(?!\s+build)\b|next dev|http-server|tail -f/;
const rl = readline.createInterface({ input: process.stdin, terminal: false });
const pending = new Map();
let nextId = 1;

function send(message) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
}

function host(fn, ...args) {
  const id = `s${nextId++}`;
  send({ id, method: `host/${fn}`, params: { args } });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

function classify(name, command) {
  const text = `${name} ${command}`;
  return BACKGROUND.test(text) && !/\b(build|test|lint)\b/.test(name) ? "background" : "foreground";
}

async function npmScripts(args) {
  const path = args.path || "package.json";
  let pkg;
  try {
    pkg = JSON.parse(await host("read_file", path));
  } catch (err) {
    return { content: `${path}: ${err.message}`, is_error: true };
  }
  const scripts = pkg.scripts || {};
  return Object.keys(scripts).sort().map((name) => ({
    name, command: scripts[name], kind: classify(name, scripts[name]),
  }));
}

const TOOLS = [{
  name: "npm_scripts",
  description: "The npm scripts of a package.json, each classified foreground or background",
  input_schema: { type: "object", properties: { path: { type: "string" } } },
}];

async function handle(method, params) {
  if (method === "initialize") return { tools: TOOLS };
  if (method === "tool/call" && params.name === "npm_scripts") return npmScripts(params.arguments || {});
  throw new Error(`unknown method ${method}`);
}

rl.on("line", async (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.id !== undefined && pending.has(msg.id) && !msg.method) {  // an answer from aiagent
    const { resolve, reject } = pending.get(msg.id);
    pending.delete(msg.id);
    return msg.error ? reject(new Error(msg.error.message)) : resolve(msg.result);
  }
  if (msg.id === undefined) {  // a notification
    if (msg.method === "shutdown") process.exit(0);
    return;
  }
  try {
    send({ id: msg.id, result: await handle(msg.method, msg.params || {}) });
  } catch (err) {
    send({ id: msg.id, error: { code: -32000, message: err.message } });
  }
});
rl.on("close", () => process.exit(0));
