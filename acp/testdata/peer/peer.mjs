// Drives `godwit acp` with the official ACP TypeScript client, as an
// editor would: initialize, session/new, session/prompt, answer the
// permission request, collect the streamed updates, then session/load the
// same session from a second process and collect the replay.
//
// Usage: node peer.mjs GODWIT_BINARY WORKSPACE PROMPT
// (GODWIT_HOME and the rest of the environment are passed on.)
// It prints one JSON summary on stdout; acp/peer_test.go checks it.

import { spawn } from "node:child_process";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const [binary, workspace, promptText] = process.argv.slice(2);
if (!binary || !workspace || !promptText) {
  console.error("usage: node peer.mjs GODWIT_BINARY WORKSPACE PROMPT");
  process.exit(2);
}

// start runs one godwit process; stray bytes on its stdout would break
// the JSON-RPC stream, and the SDK would fail the requests.
function start() {
  const child = spawn(binary, ["acp"], { cwd: workspace, stdio: ["pipe", "pipe", "pipe"] });
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

function app(record) {
  return client({ name: "godwit-peer-test" })
    .onNotification(methods.client.session.update, ({ params }) => {
      record.notifications.push(params.update);
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      record.permissions.push(params);
      const allow = params.options.find((o) => o.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: allow.optionId } };
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
}

const capabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: false };

async function main() {
  const out = { permissions: [], notifications: [], fsReads: [], fsWrites: [], replay: [] };

  const first = start();
  await app(out).connectWith(first.stream, async (ctx) => {
    out.initialize = await ctx.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: capabilities,
      clientInfo: { name: "godwit-peer-test", version: "0" },
    });
    const session = await ctx.buildSession(workspace).start();
    out.sessionId = session.sessionId;
    out.modes = session.modes;
    // ActiveSession queues this session's updates; read them to the stop.
    const done = session.prompt(promptText);
    out.updates = [];
    for (;;) {
      const msg = await session.nextUpdate();
      if (msg.kind === "stop") {
        out.stopReason = msg.stopReason;
        break;
      }
      out.updates.push(msg.update);
    }
    await done;
    session.dispose();
  });
  first.child.stdin.end();
  await first.closed;
  out.stderr = first.stderr();
  out.badLines = first.badLines();

  // A second editor process reloads the session from the store.
  const replay = { permissions: [], notifications: [], fsReads: [], fsWrites: [] };
  const second = start();
  await app(replay).connectWith(second.stream, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: capabilities });
    await ctx.request(methods.agent.session.load, { sessionId: out.sessionId, cwd: workspace, mcpServers: [] });
  });
  second.child.stdin.end();
  await second.closed;
  out.replay = replay.notifications;
  out.badLines.push(...second.badLines());

  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((err) => {
  console.error("peer:", err?.stack ?? err);
  process.exit(1);
});
