/*
 * view.js of `multiagent.plan_adherence`: the DOM, on the runtime. Two radios for the verdict, the
 * list of departures (step link, kind, Remove), and an "Add departure" row; the trace view's
 * "Mark a departure" adds the step it is on with the first kind.
 */
import * as runtime from 'potato-multiagent';
import './marks.js';

var marks = runtime.marksOf('plan_adherence');

function current(model) {
  var value = model.get().value;
  return {verdict: value && value.verdict ? value.verdict : null, departures: marks.departuresOf(value).slice()};
}

function store(args, verdict, departures) {
  args.model.set(marks.composeValue(verdict, departures));
  draw(args);
}

function add(args, step, kind) {
  var now = current(args.model);
  if (now.departures.some(function (d) { return d.step === step; })) { return false; }
  now.departures.push({step: step, kind: kind});
  store(args, now.verdict === null ? 'departed' : now.verdict, now.departures);
  return true;
}

function draw(args) {
  var ui = args.ui;
  var now = current(args.model);
  args.el.querySelectorAll('input[data-ma-field="verdict"]').forEach(function (radio) {
    radio.checked = radio.value === now.verdict;
  });
  var list = ui.hook('departures');
  ui.clear(list);
  now.departures.forEach(function (departure, position) {
    list.appendChild(ui.h('li', {'data-ma': 'departure'}, [
      ui.stepLink(departure.step), ' ',
      ui.h('span', {text: departure.kind}), ' ',
      ui.h('button', {type: 'button', 'class': 'ma-button', 'data-ma': 'remove',
        'data-ma-focus': 'remove-' + departure.step, 'aria-label': 'Remove the departure at #' + (departure.step + 1),
        text: 'Remove', on: {click: function () {
          var rest = current(args.model);
          rest.departures.splice(position, 1);
          store(args, rest.verdict, rest.departures);
          ui.announce('Removed the departure at #' + (departure.step + 1) + '.');
        }}})
    ]));
  });
}

/** Wire the controls once; each handler acts on the latest render pass's args (ui.state.args). */
function wire(el, ui) {
  function latest() { return ui.state.args; }
  el.querySelectorAll('input[data-ma-field="verdict"]').forEach(function (radio) {
    radio.addEventListener('change', function () {
      store(latest(), radio.value, current(latest().model).departures);
    });
  });
  ui.hook('add').addEventListener('click', function () {
    var number = Number(ui.hook('add-step').value);
    var count = latest().derivation.steps.length;
    if (!(Math.floor(number) === number && number >= 1 && number <= count)) {
      ui.announce('Give a step from #1 to #' + count + '.');
      return;
    }
    var kind = ui.hook('add-kind').value;
    ui.announce(add(latest(), number - 1, kind) ? 'Added a departure at #' + number + '.' : '#' + number + ' is marked already.');
  });
}

function render(args) {
  args.ui.state.args = args;
  if (!args.ui.state.wired) {
    args.ui.state.wired = true;
    wire(args.el, args.ui);
  }
  draw(args);
  args.ui.onStepAction('plan-departure', function (detail, event) {
    if (typeof detail.index !== 'number' || detail.index < 0 || detail.index >= args.derivation.steps.length) { return; }
    add(args, detail.index, (args.config.kinds || [])[0]);
    event.preventDefault();
  });
}

runtime.define('plan_adherence', {describe: marks.describe, render: render,
  stepActions: [{action: 'plan-departure', label: 'Mark a departure from the plan'}]});
