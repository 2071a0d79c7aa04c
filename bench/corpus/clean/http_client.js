// A promise-based HTTP client in the style of popular JavaScript HTTP libraries.
"use strict";

const http = require("http");
const https = require("https");
const { URL } = require("url");

const DEFAULTS = { timeout: 10000, maxRedirects: 5, headers: { "user-agent": "minifetch/2.1" } };
const ABSOLUTE = /^[a-z][a-z\d+\-.]*:\/\//i;

function combineURLs(baseURL, relativeURL) {
  return relativeURL ? baseURL.replace(/\/+$/, "") + "/" + relativeURL.replace(/^\/+/, "") : baseURL;
}

function buildURL(base, path, params) {
  const full = ABSOLUTE.test(path) ? path : combineURLs(base || "", path);
  const url = new URL(full);
  for (const [key, value] of Object.entries(params || {})) {
    url.searchParams.append(key, String(value));
  }
  return url;
}

class HttpError extends Error {
  constructor(response) {
    super(`Request failed with status ${response.status}`);
    this.response = response;
  }
}

class Client {
  constructor(config = {}) {
    this.defaults = { ...DEFAULTS, ...config, headers: { ...DEFAULTS.headers, ...config.headers } };
    this.interceptors = { request: [], response: [] };
  }

  request(config) {
    const merged = { ...this.defaults, ...config };
    for (const fn of this.interceptors.request) fn(merged);
    const url = buildURL(merged.baseURL, merged.url, merged.params);
    const transport = url.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, { method: merged.method || "GET", headers: merged.headers }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          const response = { status: res.statusCode, headers: res.headers, data: parse(body, res.headers) };
          if (response.status >= 400) return reject(new HttpError(response));
          resolve(this.interceptors.response.reduce((r, fn) => fn(r), response));
        });
      });
      req.setTimeout(merged.timeout, () => req.destroy(new Error("timeout")));
      req.on("error", reject);
      if (merged.data) req.write(typeof merged.data === "string" ? merged.data : JSON.stringify(merged.data));
      req.end();
    });
  }

  get(url, config) {
    return this.request({ ...config, url, method: "GET" });
  }

  post(url, data, config) {
    return this.request({ ...config, url, data, method: "POST" });
  }
}

function parse(body, headers) {
  const type = headers["content-type"] || "";
  const match = /charset=([\w-]+)/i.exec(type);
  if (type.includes("application/json")) return JSON.parse(body);
  return match ? Buffer.from(body).toString(match[1] === "utf-8" ? "utf8" : "latin1") : body;
}

async function getJSON(client, path) {
  const { data } = await client.get(path);
  return data;
}

async function all(client, paths) {
  return Promise.all(paths.map((p) => client.get(p)));
}

const messages = {
  password: "Password",
  passwordTooShort: "Password must be at least 12 characters",
  token: "Access token",
  secret: "Client secret",
};

module.exports = { Client, HttpError, buildURL, getJSON, all, messages };
