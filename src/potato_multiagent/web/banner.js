/*
 * banner.js: Potato's required-question banner, written as text.
 *
 * Potato 2.12.1's updateRequiredFieldsError (annotation.js, a global) writes each unanswered
 * question's legend text and data-incomplete-reason into the banner with innerHTML, so markup in
 * any scheme's description runs when Next is pressed (docs/security.md). guardRequiredBanner()
 * installs the same banner built with textContent: once, only where Potato's function exists.
 * install(base) -> {guardRequiredBanner}, called by widget.js.
 */
export function install(base) {
  var h = base.h;
  var clear = base.clear;
  var appendChildren = base.appendChildren;

  function guardRequiredBanner() {
    if (typeof globalThis.updateRequiredFieldsError !== 'function' || globalThis.updateRequiredFieldsError.multiagentText) {
      return;
    }
    var textBanner = function updateRequiredFieldsError(unfilledSchemas) {
      var banner = requiredBanner(unfilledSchemas.length > 0);
      if (!banner) { return; }
      if (unfilledSchemas.length === 0) { banner.style.display = 'none'; return; }
      clear(banner);
      var plural = unfilledSchemas.length > 1 ? 's' : '';
      appendChildren(banner, [h('i', {class: 'fas fa-exclamation-circle'}),
        ' Please answer the required question' + plural + ': ']);
      unfilledSchemas.forEach(function (schema, position) {
        appendChildren(banner, [position ? ', ' : null, h('strong', {text: schema.label}),
          schema.reason ? ' (' + schema.reason + ')' : null]);
      });
      banner.style.display = 'block';
    };
    textBanner.multiagentText = true;
    globalThis.updateRequiredFieldsError = textBanner;
  }

  /** Potato's #required-fields-error (made where Potato makes it, when `create` and missing). */
  function requiredBanner(create) {
    var banner = document.getElementById('required-fields-error');
    var nav = document.querySelector('.potato-nav');
    if (banner || !create || !nav) { return banner; }
    banner = h('div', {id: 'required-fields-error', class: 'required-fields-error', role: 'alert'});
    nav.parentNode.insertBefore(banner, nav);
    return banner;
  }

  return {guardRequiredBanner: guardRequiredBanner};
}
