#!/usr/bin/env node
// A teammate that speaks Autohand's JSON-RPC 2.0 over stdio (newline-delimited), written in
// another language than the lead on purpose. No LLM: each task is "worked on" for JRPC_WORK_MS.
//
// Environment (all optional):
//   TEAMTUI_NAME         the name sent in team.ready
//   JRPC_WORK_MS         how long a task takes (default 50)
//   JRPC_IGNORE_SHUTDOWN "1": log the shutdown request and keep running (the lead must SIGTERM it)
//   JRPC_NOISE           "1": print a stray line, a torn message and an unknown method at start
//   JRPC_TELL            "NAME:TEXT": once ready, team.message TEXT to NAME
//   JRPC_IDLE_AT_START   "1": send team.idle right after team.ready (asking for work)
//   JRPC_CRASH_ONCE      a file path: the first teammate given a task while it is missing
//                        creates it and exits with code 3 (a crash)
"use strict";

const fs = require("fs");
const readline = require("readline");

const name = process.env.TEAMTUI_NAME || "node-teammate";
const workMs = Number(process.env.JRPC_WORK_MS || 50);
let stopping = false;

function send(method, params) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
}

function log(text, level = "info") {
  send("team.log", { level, text });
}

function work(task) {
  const once = process.env.JRPC_CRASH_ONCE;
  if (once) {
    try {
      fs.writeFileSync(once, name, { flag: "wx" });
      process.exit(3);
    } catch (e) {
      // it exists: this one already crashed
    }
  }
  send("team.taskUpdate", { taskId: task.id, status: "in_progress" });
  log(`working on #${task.id}: ${task.subject} (blockedBy: ${JSON.stringify(task.blockedBy)})`);
  setTimeout(() => {
    if (stopping) return;
    send("team.taskUpdate", { taskId: task.id, status: "completed", result: `${name} did ${task.subject}` });
    send("team.idle", { lastTask: task.id });
  }, workMs);
}

const handlers = {
  "team.assignTask": (p) => work(p.task),
  "team.message": (p) => log(`message from ${p.from}: ${p.content}`),
  "team.updateContext": (p) => {
    const done = p.tasks.filter((t) => t.status === "completed").length;
    log(`context: ${done}/${p.tasks.length} tasks completed`, "debug");
  },
  "team.shutdown": (p) => {
    if (process.env.JRPC_IGNORE_SHUTDOWN === "1") {
      log(`ignoring shutdown (${p.reason})`, "warning");
      return;
    }
    stopping = true;
    send("team.shutdownAck", {});
    process.exit(0);
  },
};

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    log(`could not parse a line from the lead: ${line.slice(0, 80)}`, "error");
    return;
  }
  if (msg.id !== undefined && msg.method === undefined) return; // a response to our request
  const handler = handlers[msg.method];
  if (handler) handler(msg.params || {});
  else log(`unknown method from the lead: ${msg.method}`, "warning");
});
// The lead closed our stdin: nobody is listening any more.
rl.on("close", () => process.exit(0));

if (process.env.JRPC_NOISE === "1") {
  console.log("hello from console.log, not a JSON-RPC message");
  process.stdout.write('{"jsonrpc": "2.0", "method": "team.log", "params": {"text": \n');
  send("team.dance", {});
}
send("team.ready", { name });
if (process.env.JRPC_TELL) {
  const i = process.env.JRPC_TELL.indexOf(":");
  send("team.message", { to: process.env.JRPC_TELL.slice(0, i), content: process.env.JRPC_TELL.slice(i + 1) });
}
if (process.env.JRPC_IDLE_AT_START === "1") send("team.idle", {});
