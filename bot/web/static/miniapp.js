// The Mini App inside Telegram: Telegram's own script (telegram-web-app.js, loaded by
// /app in its <head> as Telegram documents, and by this file on the pages opened from
// there), ready() and expand(), the theme's colours kept as they change, the BackButton
// between pages and the MainButton for the page's main action: "Share" on a result
// (a prepared inline message, POST /app/share, then shareMessage) and "Open in the
// chat" elsewhere. Outside Telegram this file does nothing, and no page loads anything
// from telegram.org.
(function () {
  "use strict";
  var SDK = "https://telegram.org/js/telegram-web-app.js";
  var store = window.sessionStorage;
  var body = document.body;

  function kept(name) {
    try { return store.getItem(name) || ""; } catch (e) { return ""; }
  }
  function keep(name, value) {
    try { if (value) store.setItem(name, value); } catch (e) { /* private mode */ }
  }

  var hash = new URLSearchParams(window.location.hash.slice(1));
  var loaded = window.Telegram && window.Telegram.WebApp;
  var launched = hash.get("tgWebAppData") || kept("benchboard-init") ||
                 (loaded && window.Telegram.WebApp.initData);
  if (!launched) return;  // an ordinary browser
  var bot = document.querySelector('meta[name="benchboard-bot"]');
  if (bot) keep("benchboard-bot", bot.getAttribute("content"));

  // the theme's colours on the stylesheet's variables (the same names app.js sets from
  // the launch data): now, and again at every themeChanged
  var NAMES = [["bg_color", "--bg"], ["bg_color", "--bg2"], ["secondary_bg_color", "--bg2"],
               ["section_bg_color", "--bg2"], ["text_color", "--fg"], ["hint_color", "--muted"],
               ["hint_color", "--line"], ["link_color", "--link"], ["button_color", "--accent"],
               ["button_text_color", "--on-accent"]];
  function applyTheme(theme) {
    if (!theme || typeof theme !== "object") return;
    NAMES.forEach(function (pair) {
      var value = theme[pair[0]];
      if (typeof value === "string" && /^#[0-9a-fA-F]{3,8}$/.test(value)) {
        document.documentElement.style.setProperty(pair[1], value);
      }
    });
    document.documentElement.classList.add("tg");
  }

  function mainButton(app, text, action) {
    if (!text || !app.MainButton) return;
    app.MainButton.setText(text);
    app.MainButton.onClick(action);
    app.MainButton.show();
  }

  function share(app, token) {
    var data = app.initData || kept("benchboard-init");
    var lang = new URLSearchParams(window.location.search).get("lang");
    var failed = function () {
      var text = body.getAttribute("data-tg-share-failed");
      if (app.showAlert) app.showAlert(text); else window.alert(text);
    };
    if (app.MainButton.showProgress) app.MainButton.showProgress();
    fetch("/app/share" + (lang ? "?lang=" + encodeURIComponent(lang) : ""), {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "init_data=" + encodeURIComponent(data) + "&token=" + encodeURIComponent(token),
    }).then(function (response) {
      if (!response.ok) throw new Error("share " + response.status);
      return response.json();
    }).then(function (prepared) {
      app.shareMessage(prepared.id);
    }).catch(failed).then(function () {
      if (app.MainButton.hideProgress) app.MainButton.hideProgress();
    });
  }

  function setUp() {
    var app = window.Telegram && window.Telegram.WebApp;
    if (!app) return;
    app.ready();
    app.expand();
    applyTheme(app.themeParams);
    app.onEvent("themeChanged", function () { applyTheme(app.themeParams); });
    var path = window.location.pathname;
    if (app.BackButton) {
      if (path === "/app") {
        app.BackButton.hide();
      } else {
        app.BackButton.onClick(function () {
          if (window.history.length > 1) window.history.back();
          else window.location.href = "/app";
        });
        app.BackButton.show();
      }
    }
    var result = path.match(/^\/r\/([A-Za-z0-9_-]{1,32})$/);
    if (result && app.shareMessage) {
      mainButton(app, body.getAttribute("data-tg-share"), function () { share(app, result[1]); });
    } else {
      var chat = kept("benchboard-bot");
      if (chat) {
        mainButton(app, body.getAttribute("data-tg-open"), function () {
          app.openTelegramLink(chat);
        });
      }
    }
  }

  if (loaded) {
    setUp();
  } else {  // a page opened from /app: Telegram's script, then the same
    var script = document.createElement("script");
    script.src = SDK;
    script.onload = setUp;
    document.head.appendChild(script);
  }
})();
