// aiagent serve: a small code highlighter, no framework, no build step. It splits code into
// comments, strings, numbers, keywords and plain text and returns DOM nodes built from
// text (spans with textContent): code is never put into the page as HTML.
"use strict";

window.aiagentHighlight = (() => {
  const WORDS = {
    py: "and as assert async await break case class continue def del elif else except False " +
        "finally for from global if import in is lambda match None nonlocal not or pass raise " +
        "return self True try while with yield",
    js: "as async await break case catch class const continue default delete do else enum " +
        "export extends false finally for from function if implements import in instanceof " +
        "interface let new null of private public return static super switch this throw true " +
        "try type typeof undefined var void while yield",
    sh: "case do done elif else esac exit export fi for function if in local return set shift " +
        "then unset until while",
    go: "break case chan const continue default defer else false fallthrough for func go goto " +
        "if import interface map nil package range return select struct switch true type var",
    rs: "as async await break const continue crate else enum extern false fn for if impl in " +
        "let loop match mod move mut pub ref return self Self static struct super trait true " +
        "type unsafe use where while",
    c: "auto bool break case catch char class const continue default delete do double else enum " +
       "extern false final float for if int long namespace new null nullptr private protected " +
       "public return short signed sizeof static struct switch template this throw true try " +
       "typedef union unsigned using var virtual void volatile while",
  };
  const ALIASES = {
    py: "py", python: "py", python3: "py", js: "js", javascript: "js", mjs: "js", ts: "js",
    typescript: "js", jsx: "js", tsx: "js", json: "js", sh: "sh", bash: "sh", shell: "sh",
    zsh: "sh", console: "sh", go: "go", golang: "go", rs: "rs", rust: "rs", c: "c", h: "c",
    cpp: "c", "c++": "c", cc: "c", java: "c", kotlin: "c", kt: "c", cs: "c", csharp: "c",
    swift: "c", toml: "sh", yaml: "sh", yml: "sh",
  };
  const HASH_COMMENTS = new Set(["py", "sh"]);
  const LIMIT = 100000;  // longer code is shown plain
  const cache = {};

  function rules(lang) {
    if (cache[lang]) return cache[lang];
    const comment = HASH_COMMENTS.has(lang) ? "#[^\\n]*" : "\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?(?:\\*\\/|$)";
    const strings = lang === "py"
      ? "\"\"\"[\\s\\S]*?(?:\"\"\"|$)|'''[\\s\\S]*?(?:'''|$)|\"(?:\\\\.|[^\"\\\\\\n])*\"?|'(?:\\\\.|[^'\\\\\\n])*'?"
      : "`(?:\\\\.|[^`\\\\])*`?|\"(?:\\\\.|[^\"\\\\\\n])*\"?|'(?:\\\\.|[^'\\\\\\n])*'?";
    const number = "\\b(?:0[xob][\\da-fA-F_]+|\\d[\\d_]*(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)\\b";
    const words = WORDS[lang].split(" ").join("|");
    const pattern = new RegExp(`(${comment})|(${strings})|(${number})|\\b(${words})\\b`, "g");
    cache[lang] = pattern;
    return pattern;
  }

  function span(cls, text) {
    const node = document.createElement("span");
    node.className = cls;
    node.textContent = text;
    return node;
  }

  // A fragment of text nodes and spans (tok-com, tok-str, tok-num, tok-kw); null when the
  // language is unknown or the code too long (the caller shows it plain).
  return function highlight(code, language) {
    const lang = ALIASES[String(language || "").toLowerCase()];
    if (!lang || code.length > LIMIT) return null;
    const pattern = rules(lang);
    const frag = document.createDocumentFragment();
    let last = 0;
    pattern.lastIndex = 0;
    for (const m of code.matchAll(pattern)) {
      if (!m[0]) continue;
      if (m.index > last) frag.append(document.createTextNode(code.slice(last, m.index)));
      const cls = m[1] ? "tok-com" : m[2] ? "tok-str" : m[3] ? "tok-num" : "tok-kw";
      frag.append(span(cls, m[0]));
      last = m.index + m[0].length;
    }
    if (last < code.length) frag.append(document.createTextNode(code.slice(last)));
    return frag;
  };
})();
