// A stand-in for https://telegram.org/js/telegram-web-app.js in the browser tests
// (served by routing the request in Playwright: no network). It keeps the launch data
// as Telegram's script does (from the address's fragment, then for the tab) and records
// every call the Mini App makes in window.__tg; window.__tgFire(name) fires an event.
(function () {
  "use strict";
  var calls = window.__tg = [];
  var hash = new URLSearchParams(window.location.hash.slice(1));
  function kept(name, fresh) {
    if (fresh) sessionStorage.setItem(name, fresh);
    return fresh || sessionStorage.getItem(name) || "";
  }
  var initData = kept("stub-init", hash.get("tgWebAppData"));
  var theme = JSON.parse(kept("stub-theme", hash.get("tgWebAppThemeParams")) || "{}");
  var handlers = {};
  function record(name) {
    return function () {
      var args = Array.prototype.slice.call(arguments);
      calls.push([name].concat(args.filter(function (a) { return typeof a !== "function"; })));
    };
  }
  function button(name) {
    return {
      text: "", isVisible: false, clicks: [],
      setText: function (text) { this.text = text; calls.push([name + ".setText", text]); },
      onClick: function (f) { this.clicks.push(f); calls.push([name + ".onClick"]); },
      show: function () { this.isVisible = true; calls.push([name + ".show"]); },
      hide: function () { this.isVisible = false; calls.push([name + ".hide"]); },
      showProgress: record(name + ".showProgress"),
      hideProgress: record(name + ".hideProgress"),
      click: function () { this.clicks.forEach(function (f) { f(); }); },
    };
  }
  window.Telegram = { WebApp: {
    initData: initData,
    themeParams: theme,
    ready: record("ready"),
    expand: record("expand"),
    onEvent: function (name, f) { (handlers[name] = handlers[name] || []).push(f);
                                  calls.push(["onEvent", name]); },
    MainButton: button("MainButton"),
    BackButton: button("BackButton"),
    shareMessage: record("shareMessage"),
    openTelegramLink: record("openTelegramLink"),
    showAlert: record("showAlert"),
  } };
  window.__tgFire = function (name) {
    (handlers[name] || []).forEach(function (f) { f.call(window.Telegram.WebApp); });
  };
})();
