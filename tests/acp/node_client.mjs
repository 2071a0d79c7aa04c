// An ACP client written with the TypeScript SDK (@agentclientprotocol/sdk, a peer we did
// not write): it starts `aiagent acp`, offers fs + terminal, runs one prompt, answers the
// permission requests, serves fs/* from the disk and terminal/* by spawning the command
// here, then prints a JSON transcript on stdout for tests/acp/test_acp_node_client.py.
//
// usage: node node_client.mjs SDK_PREFIX AIAGENT PROJECT PROMPT
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkPrefix, aiagent, project, promptText] = process.argv.slice(2);
const sdkPath = createRequire(join(sdkPrefix, "package.json")).resolve("@agentclientprotocol/sdk");
const acp = await import(pathToFileURL(sdkPath).href);
const { client, methods, ndJsonStream, PROTOCOL_VERSION } = acp;

const transcript = { updates: [], permissions: [], writes: [], reads: [], terminal: [] };
const terminals = new Map();
let terminalCount = 0;

const agentProcess = spawn(aiagent, ["acp", "--provider", "anthropic"], {
  cwd: project, stdio: ["pipe", "pipe", "inherit"],
});
const stream = ndJsonStream(Writable.toWeb(agentProcess.stdin), Readable.toWeb(agentProcess.stdout));

function startTerminal({ command, args = [], cwd, env = [], outputByteLimit }) {
  const extra = Object.fromEntries(env.map((e) => [e.name, e.value]));
  const child = spawn(command, args, { cwd, env: { ...process.env, ...extra }, detached: true });
  const term = { child, output: "", truncated: false, exit: null, limit: outputByteLimit ?? null };
  const keep = (chunk) => {
    term.output += chunk.toString("utf8");
    if (term.limit !== null && Buffer.byteLength(term.output) > term.limit) {
      term.output = term.output.slice(-term.limit);
      term.truncated = true;
    }
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  term.done = new Promise((resolve) => child.on("close", (code, signal) => {
    term.exit = { exitCode: code, signal: signal ?? null };
    resolve(term.exit);
  }));
  return term;
}

function killTerminal(term) {
  if (term.exit === null) {
    try { process.kill(-term.child.pid, "SIGKILL"); } catch { /* already gone */ }
  }
}

const app = client({ name: "aiagent-node-test-client" })
  .onNotification(methods.client.session.update, ({ params }) => {
    transcript.updates.push(params.update);
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    transcript.permissions.push({ title: params.toolCall.title, kind: params.toolCall.kind,
                                  options: params.options.map((o) => o.optionId) });
    return { outcome: { outcome: "selected", optionId: "once" } };
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    transcript.reads.push(params.path);
    return { content: readFileSync(params.path, "utf8") };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    transcript.writes.push({ path: params.path, content: params.content });
    mkdirSync(dirname(params.path), { recursive: true });
    writeFileSync(params.path, params.content);
    return {};
  })
  .onRequest(methods.client.terminal.create, ({ params }) => {
    const terminalId = `node-term-${++terminalCount}`;
    transcript.terminal.push({ call: "create", terminalId, command: params.command,
                               args: params.args ?? [], cwd: params.cwd ?? null });
    terminals.set(terminalId, startTerminal(params));
    return { terminalId };
  })
  .onRequest(methods.client.terminal.output, ({ params }) => {
    const term = terminals.get(params.terminalId);
    transcript.terminal.push({ call: "output", terminalId: params.terminalId });
    return { output: term.output, truncated: term.truncated, exitStatus: term.exit ?? undefined };
  })
  .onRequest(methods.client.terminal.waitForExit, async ({ params }) => {
    transcript.terminal.push({ call: "wait_for_exit", terminalId: params.terminalId });
    return await terminals.get(params.terminalId).done;
  })
  .onRequest(methods.client.terminal.kill, ({ params }) => {
    transcript.terminal.push({ call: "kill", terminalId: params.terminalId });
    killTerminal(terminals.get(params.terminalId));
    return {};
  })
  .onRequest(methods.client.terminal.release, ({ params }) => {
    transcript.terminal.push({ call: "release", terminalId: params.terminalId });
    killTerminal(terminals.get(params.terminalId));
    terminals.delete(params.terminalId);
    return {};
  });

let failure = null;
try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    });
    transcript.agentInfo = init.agentInfo;
    const session = await ctx.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
    transcript.modes = session.modes;
    try {
      await ctx.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "no-such-mode" });
      transcript.badMode = "accepted";
    } catch (err) {
      transcript.badMode = { code: err.code, message: err.message };
    }
    await ctx.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "prompt" });
    const result = await ctx.request(methods.agent.session.prompt, {
      sessionId: session.sessionId, prompt: [{ type: "text", text: promptText }],
    });
    transcript.stopReason = result.stopReason;
  });
} catch (err) {
  failure = String(err && err.stack ? err.stack : err);
}
transcript.failure = failure;
agentProcess.stdin.end();
const exited = new Promise((resolve) => agentProcess.on("close", resolve));
const timer = setTimeout(() => agentProcess.kill("SIGKILL"), 15000);
await exited;
clearTimeout(timer);
process.stdout.write(JSON.stringify(transcript) + "\n");
process.exit(failure ? 1 : 0);
