// Renders the cart summary in the browser.
function showMessage(message) {
  document.getElementById("flash").innerHTML = message;
}

function showCount(count) {
  document.getElementById("count").textContent = String(count);
}

const params = new URLSearchParams(window.location.search);
showMessage(params.get("msg") || "");
