// The app map: screens (thumbnails drawn from their elements) and transitions from
// /apps/{package}/map.json, drawn with Cytoscape.js. Read-only. UI text is untrusted: it
// only ever reaches the page as textContent.
(function () {
  'use strict';
  const pkg = document.body.dataset.package;
  const base = '/apps/' + encodeURIComponent(pkg);
  const state = window.appmemMap = { ready: false, cy: null, selected: null, route: null };

  function colour(reliability) {  // red (0) → green (1)
    const r = Math.round(198 - 152 * reliability), g = Math.round(40 + 85 * reliability);
    return 'rgb(' + r + ',' + g + ',50)';
  }

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  // The data routes need an API key with the `plan` scope: given once as /apps/PKG/map#key=KEY (a
  // fragment never reaches a server or its logs), or asked for; kept for this tab only.
  const key = (function () {
    const found = /(?:^#|&)key=([^&]+)/.exec(window.location.hash);
    if (found) {
      sessionStorage.setItem('appmemKey', decodeURIComponent(found[1]));
      history.replaceState(null, '', window.location.pathname + window.location.search);
    }
    let stored = sessionStorage.getItem('appmemKey');
    if (!stored) {
      stored = window.prompt('appmem API key (scope plan)') || '';
      sessionStorage.setItem('appmemKey', stored);
    }
    return stored;
  })();

  async function getJSON(url) {
    const reply = await fetch(url, { headers: { Authorization: 'Bearer ' + key } });
    if (!reply.ok) throw new Error(url + ': ' + reply.status + ' ' + (await reply.text()));
    return reply.json();
  }

  async function showScreen(id) {
    state.selected = id;
    const s = await getJSON(base + '/screens/' + encodeURIComponent(id) + '.json');
    document.getElementById('screen-title').textContent = s.title || s.activity || s.id;
    document.getElementById('screen-meta').textContent = (s.activity || '') + ' · version ' + (s.version || '?');
    document.getElementById('summary').textContent = s.summary || '(no summary yet: appmem summarize)';
    const subtasks = document.getElementById('subtasks');
    subtasks.replaceChildren();
    let parsed = [];
    try { parsed = s.subtasks ? JSON.parse(s.subtasks) : []; } catch (e) { parsed = []; }
    for (const t of parsed) subtasks.appendChild(el('li', (t.name || '') + (t.description ? ': ' + t.description : '')));
    const list = document.getElementById('details');
    list.replaceChildren();
    for (const e of s.elements) {
      const what = (e.label || '(no label)') + ' · ' + (e.class_name || '').split('.').pop() +
        (e.simulated_task ? ' — ' + e.simulated_task : '');
      list.appendChild(el('li', what, e.risky ? 'risky' : ''));
    }
    list.dataset.screen = id;
  }

  async function showRoute() {
    const from = document.getElementById('from').value, to = document.getElementById('to').value;
    const r = await getJSON(base + '/route?source=' + encodeURIComponent(from) + '&target=' + encodeURIComponent(to));
    const cy = state.cy, list = document.getElementById('route');
    cy.elements().removeClass('route');
    list.replaceChildren();
    if (!r.found) { list.appendChild(el('li', 'no route in the memory')); state.route = r; return; }
    let at = from;
    cy.getElementById(at).addClass('route');
    for (const hop of r.hops) {
      const edge = cy.edges().filter((e) => e.data('source') === at && e.data('target') === hop.target &&
        e.data('action') === hop.action && (e.data('element_id') || '') === (hop.element_id || ''));
      edge.addClass('route');
      cy.getElementById(hop.target).addClass('route');
      const label = edge.length ? edge[0].data('label') : hop.action;
      list.appendChild(el('li', label + ' → ' + (cy.getElementById(hop.target).data('title') || hop.target)));
      at = hop.target;
    }
    state.route = r;
  }

  async function main() {
    const data = await getJSON(base + '/map.json');
    const elements = data.screens.map((s) => ({ group: 'nodes', data: { ...s, label: s.title } }))
      .concat(data.transitions.map((t) => ({
        group: 'edges',
        data: { ...t, id: 't' + t.key, colour: t.stale ? '#9e9e9e' : colour(t.reliability) },
        classes: t.stale ? 'stale' : '',
      })));
    const cy = state.cy = cytoscape({
      container: document.getElementById('cy'),
      elements,
      wheelSensitivity: 0.3,
      style: [
        { selector: 'node', style: {
          shape: 'round-rectangle', width: 54, height: 96, 'background-color': '#fff',
          'background-image': 'data(thumbnail)', 'background-fit': 'contain', 'border-width': 2,
          'border-color': '#455a64', label: 'data(label)', 'font-size': 9, 'text-valign': 'bottom',
          'text-margin-y': 4, 'text-wrap': 'ellipsis', 'text-max-width': 90 } },
        { selector: 'node:selected', style: { 'border-color': '#1565c0', 'border-width': 5 } },
        { selector: 'edge', style: {
          width: 2, 'line-color': 'data(colour)', 'target-arrow-color': 'data(colour)',
          'target-arrow-shape': 'triangle', 'curve-style': 'bezier', label: 'data(label)', 'font-size': 7,
          'text-rotation': 'autorotate', 'text-background-color': '#fff', 'text-background-opacity': 0.7 } },
        { selector: 'edge.stale', style: { 'line-style': 'dashed' } },
        { selector: '.route', style: { 'border-color': '#ff6f00', 'line-color': '#ff6f00',
          'target-arrow-color': '#ff6f00', width: 5, 'border-width': 5 } },
      ],
      layout: { name: 'cose', animate: false, randomize: false, nodeRepulsion: 90000, idealEdgeLength: 120 },
    });
    cy.on('tap', 'node', (evt) => { showScreen(evt.target.id()).catch(report); });
    document.getElementById('count').textContent = String(cy.nodes().length);
    document.getElementById('edge-count').textContent = String(cy.edges().length);
    for (const id of ['from', 'to']) {
      const select = document.getElementById(id);
      for (const s of data.screens) {
        const option = el('option', (s.title || s.activity) + ' · ' + s.id.slice(0, 6));
        option.value = s.id;
        select.appendChild(option);
      }
    }
    document.getElementById('route-button').addEventListener('click', () => { showRoute().catch(report); });
    state.ready = true;
  }

  function report(error) {
    state.error = String(error);
    document.getElementById('screen-title').textContent = 'Error: ' + error;
  }

  main().catch(report);
})();
