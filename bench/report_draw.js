/*
 * report_draw.js - appended by report_draw.sh to a report page: times the
 * timeline's draw() as the page's own handlers run it, each followed by a
 * read of one pixel (the browser draws a canvas lazily: the read makes it
 * draw now).  Writes one line per measure into the element #tk-bench:
 * "NAME median_ms min_ms max_ms n".
 */
(function () {
	'use strict';
	const $ = id => document.getElementById(id), cv = $('tl'), g = cv.getContext('2d');
	const R = +(window.TK_BENCH_RUNS || 15), out = [];
	const time = f => { const a = performance.now(); f(); g.getImageData(0, 0, 1, 1); return performance.now() - a; };
	const row = (name, v) => { v.sort((a, b) => a - b); out.push(name + ' ' + [v[v.length >> 1], v[0], v[v.length - 1]].map(x => x.toFixed(2)).join(' ') + ' ' + v.length); };
	const wheel = (x, dy) => { const r = cv.getBoundingClientRect(); cv.dispatchEvent(new WheelEvent('wheel', { deltaY: dy, clientX: r.left + x, clientY: r.top + 40, bubbles: true, cancelable: true })); };
	const near = [], whole = [], clicks = [];
	for (let k = 0; k < R; k++) {
		/* one wheel step in at the plot's left edge: 80 % of the trace, a
		   view not drawn before (each step a little different) */
		$('reset').click();
		near.push(time(() => wheel(+cv.dataset.plotLeft + 1 + k, -100)));
		/* "whole trace" after a zoom */
		whole.push(time(() => $('reset').click()));
	}
	const rows = [...document.querySelectorAll('#stats tr[data-k]')].filter(tr => D.stats[+tr.dataset.k].inst !== null);
	for (let k = 0; k < rows.length && clicks.length < R; k += Math.max(1, Math.floor(rows.length / R))) {
		$('reset').click();
		clicks.push(time(() => rows[k].click()));
	}
	row('near-whole-view', near);
	row('whole-trace-button', whole);
	if (clicks.length) row('metric-row-click', clicks);
	const pre = document.createElement('pre');
	pre.id = 'tk-bench';
	pre.textContent = out.join('\n');
	document.body.appendChild(pre);
})();
