// Drives `godwit acp` with the official ACP TypeScript client, as an
// editor would: initialize, session/new, then per turn an optional
// session/set_mode and a session/prompt, answering permission requests,
// running terminals when offered, collecting the streamed updates; then
// optionally session/load of the same session from a second process.
//
// Usage: node peer.mjs GODWIT_BINARY WORKSPACE SCENARIO_JSON
// (GODWIT_HOME and the rest of the environment are passed on.) SCENARIO:
//
//   {
//     "args": ["--mode", "auto"],      extra arguments of `godwit acp`
//     "terminal": true,                offer terminal/* (default false)
//     "answer": "allow_once",          option kind picked at every
//                                      permission request ("cancel":
//                                      answer cancelled); default allow_once
//     "turns": [{"mode": "ask", "prompt": "..."}],
//     "load": true,                    reload the session in a second process
//     "parallel": ["...", "..."]       instead of turns: one new session a
//                                      prompt, all prompted at once
//   }
//
// It prints one JSON summary on stdout; acp/peer_test.go checks it.

import { spawn } from "node:child_process";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const [binary, workspace, scenarioText] = process.argv.slice(2);
if (!binary || !workspace || !scenarioText) {
  console.error("usage: node peer.mjs GODWIT_BINARY WORKSPACE SCENARIO_JSON");
  process.exit(2);
}
const scenario = JSON.parse(scenarioText);
const answer = scenario.answer ?? "allow_once";

// start runs one godwit process; stray bytes on its stdout would break
// the JSON-RPC stream, and the SDK would fail the requests.
function start() {
  const child = spawn(binary, ["acp", ...(scenario.args ?? [])], { cwd: workspace, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (d) => (stderr += d));
  // Tee stdout: one copy for the SDK, one to check every line.
  const forSdk = new PassThrough();
  const forCheck = new PassThrough();
  child.stdout.pipe(forSdk);
  child.stdout.pipe(forCheck);
  forCheck.on("data", (d) => (stdout += d));
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(forSdk));
  const closed = new Promise((resolve) => child.on("close", resolve));
  return { child, stream, closed, stderr: () => stderr, badLines: () => notJsonRpc(stdout) };
}

// notJsonRpc returns the stdout lines that are not JSON-RPC 2.0 messages.
function notJsonRpc(text) {
  return text.split("\n").filter((line) => {
    if (line.trim() === "") return false;
    try {
      return JSON.parse(line).jsonrpc !== "2.0";
    } catch {
      return true;
    }
  });
}

// untilStop reads an ActiveSession's updates (the SDK queues those whose
// sessionId is the session's) up to the prompt's stop.
async function untilStop(session) {
  const updates = [];
  for (;;) {
    const msg = await session.nextUpdate();
    if (msg.kind === "stop") return { sessionId: session.sessionId, stopReason: msg.stopReason, updates };
    updates.push(msg.update);
  }
}

// promptAtOnce opens one session a prompt, then sends every prompt
// before reading any answer, so the turns stream at the same time.
async function promptAtOnce(ctx, prompts) {
  const sessions = [];
  for (const _ of prompts) sessions.push(await ctx.buildSession(workspace).start());
  const dones = sessions.map((s, i) => s.prompt(prompts[i]));
  const results = await Promise.all(sessions.map(untilStop));
  await Promise.all(dones);
  for (const s of sessions) s.dispose();
  return results;
}

// Terminals run the command exactly as asked (program, arguments,
// environment added to the editor's own, cwd), as an editor does.
const terminals = new Map();
let nextTerminal = 0;

function createTerminal(record, params) {
  const id = `term-${++nextTerminal}`;
  const env = { ...process.env };
  for (const v of params.env ?? []) env[v.name] = v.value;
  record.terminals.push({ command: params.command, args: params.args ?? [], env: (params.env ?? []).map((v) => v.name), cwd: params.cwd });
  const t = { output: "", truncated: false, exit: null, limit: params.outputByteLimit ?? 1 << 20 };
  const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? workspace, env, stdio: ["ignore", "pipe", "pipe"] });
  const add = (d) => {
    t.output += d;
    if (Buffer.byteLength(t.output) > t.limit) {
      t.output = t.output.slice(-t.limit);
      t.truncated = true;
    }
  };
  child.stdout.on("data", add);
  child.stderr.on("data", add);
  t.child = child;
  t.exited = new Promise((resolve) =>
    child.on("close", (code, signal) => {
      t.exit = { exitCode: code, signal: signal ?? null };
      resolve(t.exit);
    }),
  );
  child.on("error", (err) => {
    add(String(err));
    t.exit = { exitCode: 127, signal: null };
  });
  terminals.set(id, t);
  return { terminalId: id };
}

function app(record) {
  let a = client({ name: "godwit-peer-test" })
    .onNotification(methods.client.session.update, ({ params }) => {
      record.notifications.push(params.update);
      record.tagged?.push({ sessionId: params.sessionId, update: params.update });
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      record.permissions.push(params);
      if (answer === "cancel") return { outcome: { outcome: "cancelled" } };
      const opt = params.options.find((o) => o.kind === answer) ?? params.options.find((o) => o.kind === "reject_once");
      return { outcome: { outcome: "selected", optionId: opt.optionId } };
    })
    .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
      record.fsReads.push(params.path);
      return { content: await readFile(params.path, "utf8") };
    })
    .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      record.fsWrites.push(params.path);
      await mkdir(dirname(params.path), { recursive: true });
      await writeFile(params.path, params.content);
      return {};
    });
  if (scenario.terminal) {
    a = a
      .onRequest(methods.client.terminal.create, ({ params }) => createTerminal(record, params))
      .onRequest(methods.client.terminal.output, ({ params }) => {
        const t = terminals.get(params.terminalId);
        return { output: t.output, truncated: t.truncated, exitStatus: t.exit };
      })
      .onRequest(methods.client.terminal.waitForExit, async ({ params }) => terminals.get(params.terminalId).exited)
      .onRequest(methods.client.terminal.kill, ({ params }) => {
        terminals.get(params.terminalId).child.kill("SIGKILL");
        return {};
      })
      .onRequest(methods.client.terminal.release, ({ params }) => {
        const t = terminals.get(params.terminalId);
        if (t && t.exit === null) t.child.kill("SIGKILL");
        return {};
      });
  }
  return a;
}

const capabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: Boolean(scenario.terminal) };

async function main() {
  const out = { permissions: [], notifications: [], fsReads: [], fsWrites: [], terminals: [], replay: [], turns: [], tagged: [], parallel: [] };

  const first = start();
  await app(out).connectWith(first.stream, async (ctx) => {
    out.initialize = await ctx.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: capabilities,
      clientInfo: { name: "godwit-peer-test", version: "0" },
    });
    if (scenario.parallel) {
      out.parallel = await promptAtOnce(ctx, scenario.parallel);
      return;
    }
    const session = await ctx.buildSession(workspace).start();
    out.sessionId = session.sessionId;
    out.modes = session.modes;
    out.updates = [];
    for (const turn of scenario.turns) {
      if (turn.mode) {
        await ctx.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: turn.mode });
      }
      // ActiveSession queues this session's updates; read them to the stop.
      const done = session.prompt(turn.prompt);
      const updates = [];
      let stopReason;
      for (;;) {
        const msg = await session.nextUpdate();
        if (msg.kind === "stop") {
          stopReason = msg.stopReason;
          break;
        }
        updates.push(msg.update);
      }
      await done;
      out.turns.push({ stopReason, updates, permissions: out.permissions.length });
      out.updates.push(...updates);
      out.stopReason = stopReason;
    }
    session.dispose();
  });
  first.child.stdin.end();
  await first.closed;
  out.stderr = first.stderr();
  out.badLines = first.badLines();

  if (scenario.load) {
    // A second editor process reloads the session from the store.
    const replay = { permissions: [], notifications: [], fsReads: [], fsWrites: [], terminals: [] };
    const second = start();
    await app(replay).connectWith(second.stream, async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: capabilities });
      await ctx.request(methods.agent.session.load, { sessionId: out.sessionId, cwd: workspace, mcpServers: [] });
    });
    second.child.stdin.end();
    await second.closed;
    out.replay = replay.notifications;
    out.badLines.push(...second.badLines());
  }

  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((err) => {
  console.error("peer:", err?.stack ?? err);
  process.exit(1);
});
