// Inside Telegram (a Mini App): Telegram's theme colours on every page and, on /app,
// "my results" for the signed-in user. The pages work without this script; outside
// Telegram it does nothing. Telegram hands the launch data to the first page in the
// address's fragment (tgWebAppData, tgWebAppThemeParams); it is kept for this tab
// (sessionStorage) so that the pages opened from there keep the theme and the sign-in.
// Opened without ?lang=, /app reloads once in the language the user reads the bot in.
(function () {
  "use strict";
  var hash = new URLSearchParams(window.location.hash.slice(1));
  var webApp = window.Telegram && window.Telegram.WebApp;
  var store = window.sessionStorage;

  function kept(name, fresh) {
    try {
      if (fresh) store.setItem(name, fresh);
      return fresh || store.getItem(name) || "";
    } catch (e) {
      return fresh || "";
    }
  }

  var theme = null;
  try {
    theme = JSON.parse(kept("benchboard-theme", hash.get("tgWebAppThemeParams")) || "null");
  } catch (e) { theme = null; }
  if (!theme && webApp) theme = webApp.themeParams;
  // later entries win: a card takes the section colour, else the secondary, else the page's
  var names = [["bg_color", "--bg"], ["bg_color", "--bg2"], ["secondary_bg_color", "--bg2"],
               ["section_bg_color", "--bg2"], ["text_color", "--fg"], ["hint_color", "--muted"],
               ["hint_color", "--line"], ["link_color", "--link"], ["button_color", "--accent"],
               ["button_text_color", "--on-accent"]];
  if (theme && typeof theme === "object") {
    names.forEach(function (pair) {
      var value = theme[pair[0]];
      if (typeof value === "string" && /^#[0-9a-fA-F]{3,8}$/.test(value)) {
        document.documentElement.style.setProperty(pair[1], value);
      }
    });
  }
  var data = kept("benchboard-init", hash.get("tgWebAppData") || (webApp && webApp.initData));
  if (data || theme) document.documentElement.classList.add("tg");
  var box = document.getElementById("my");
  if (!data || !box) return;
  var lang = new URLSearchParams(window.location.search).get("lang");
  fetch("/app/me" + (lang ? "?lang=" + encodeURIComponent(lang) : ""), {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "init_data=" + encodeURIComponent(data),
  }).then(function (response) {
    // opened without ?lang= (the menu button, the bot's main Mini App): the page took
    // the phone's language; the user's in the bot (Content-Language) is the one to read
    var spoken = response.headers.get("Content-Language");
    if (!lang && spoken && /^[a-z]{2}$/.test(spoken) && spoken !== document.documentElement.lang) {
      var search = new URLSearchParams(window.location.search);
      search.set("lang", spoken);
      window.location.replace(window.location.pathname + "?" + search + window.location.hash);
      return;
    }
    return response.text().then(function (html) {
      box.innerHTML = html;  // the server's own escaped HTML
      box.hidden = false;
      box.dataset.state = response.ok ? "signed-in" : "refused";
    });
  }).catch(function () {});
})();
