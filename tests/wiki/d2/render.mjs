// Compile and render every D2 block read as a JSON list on stdin; print one JSON list of
// "ok" or the error, per block. Used by tests/wiki/d2_render.py.
import { D2 } from "@terrastruct/d2";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const blocks = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const d2 = new D2();
const out = [];
for (const block of blocks) {
  try {
    const result = await d2.compile(block);
    const svg = await d2.render(result.diagram, result.renderOptions);
    out.push(typeof svg === "string" && svg.includes("<svg") ? "ok" : "no svg");
  } catch (e) {
    out.push("error: " + String((e && e.message) || e).slice(0, 300));
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
