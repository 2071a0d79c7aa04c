// A tiny router and view layer in the style of popular JavaScript web frameworks.
"use strict";

const fs = require("fs");
const path = require("path");
const crypto = require("crypto");

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

class Router {
  constructor() {
    this.stack = [];
  }

  use(fn) {
    this.stack.push({ method: null, regexp: null, keys: [], fn });
    return this;
  }

  route(method, pattern, fn) {
    const keys = [];
    const source = pattern.replace(/:(\w+)/g, (_, key) => {
      keys.push(key);
      return "([^/]+)";
    });
    this.stack.push({ method, regexp: new RegExp("^" + source + "/?$"), keys, fn });
    return this;
  }

  get(pattern, fn) {
    return this.route("GET", pattern, fn);
  }

  handle(req, res) {
    let index = 0;
    const next = (err) => {
      const layer = this.stack[index++];
      if (!layer) return res.end(err ? "error" : "not found");
      if (layer.method && layer.method !== req.method) return next(err);
      const match = layer.regexp ? layer.regexp.exec(req.url.split("?")[0]) : [];
      if (!match) return next(err);
      req.params = Object.fromEntries(layer.keys.map((k, i) => [k, decodeURIComponent(match[i + 1])]));
      return layer.fn(req, res, next);
    };
    next();
  }
}

function render(template, locals) {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, key) => escapeHtml(locals[key] ?? ""));
}

function serveStatic(root) {
  const base = path.resolve(root);
  return (req, res, next) => {
    const file = path.resolve(base, "." + decodeURIComponent(req.url.split("?")[0]));
    if (!file.startsWith(base + path.sep)) return next();
    fs.stat(file, (err, stat) => {
      if (err || !stat.isFile()) return next();
      fs.createReadStream(file).pipe(res);
    });
  };
}

function etag(body) {
  return '"' + crypto.createHash("sha1").update(body).digest("base64").slice(0, 27) + '"';
}

function csrfToken() {
  return crypto.randomBytes(32).toString("hex");
}

const app = new Router();
app.use(serveStatic(path.join(__dirname, "public")));
app.get("/hello/:name", (req, res) => {
  const body = render("<h1>Hello {{ name }}</h1>", { name: req.params.name });
  res.setHeader("etag", etag(body));
  res.end(body);
});

module.exports = { Router, render, escapeHtml, serveStatic, etag, csrfToken, app };
