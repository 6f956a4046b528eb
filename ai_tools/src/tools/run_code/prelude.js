"use strict";
globalThis.koi = (() => {
  const mark = "__KOI_MARK__";
  const names = __KOI_NAMES__;
  const waiting = new Map();
  let last = 0;
  let pending = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    pending += chunk;
    let end = pending.indexOf("\n");
    while (end >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      end = pending.indexOf("\n");
      if (line.length === 0) continue;
      const answer = JSON.parse(line);
      const settle = waiting.get(answer.id);
      if (settle) {
        waiting.delete(answer.id);
        settle(answer.text);
      }
    }
  });
  const call = (tool, args) => new Promise((settle) => {
    last += 1;
    waiting.set(last, settle);
    process.stdout.write(mark + JSON.stringify({ id: last, tool: String(tool), args: args === undefined ? {} : args }) + "\n");
  });
  const koi = { call };
  for (const name of names) {
    koi[name] = (args) => call(name, args);
  }
  return Object.freeze(koi);
})();
