import DOMPurify from "dompurify";

export function showComment(el, comment) {
  el.innerHTML = comment.body;
}

export function showSafeComment(el, comment) {
  el.innerHTML = DOMPurify.sanitize(comment.body);
}

export function showTitle(el, title) {
  el.textContent = title;
}

export function greet(el) {
  el.innerHTML = "<b>Welcome back</b>";
}

export function runLater(code) {
  setTimeout("update(" + code + ")", 100);
}
