/*
 * behaviour.js - appended by report_test.sh to a copy of the page of
 * tests/report/behaviour.btf (or of a window of it), run by headless
 * Chromium after the page's own script, with TK_CASE naming what to check.
 * Each check writes "ok: ..." or "FAIL: ..." into #tk-test (read by
 * harness_result.py).
 *
 * behaviour.btf (ns): on Core_0, Tmr_Svc runs 100..110, is preempted and
 * never terminates; Runner runs 110..150 (preempted by the ISR Isr
 * 150..160), 160..200, is preempted 200..400 by Hog and runs 400..450;
 * Core_1 runs Other 420..1100.  The trace's first event is at 100 ns.
 */
(function () {
	'use strict';
	const out = [];
	const ok = (c, what) => out.push((c ? 'ok: ' : 'FAIL: ') + what);
	const $ = id => document.getElementById(id);
	const status = $('tk-status'), cv = $('tl');
	const S = D.slices, NSL = S.length / 7;
	const ent = name => D.ents.findIndex(e => e[0].endsWith(name));
	const view = () => status.dataset.view.split(',').map(Number);
	const bars = name => { const e = ent(name), r = []; for (let i = 0; i < NSL; i++) if (S[i * 7 + 2] === e) r.push([S[i * 7 + 3], S[i * 7 + 4], S[i * 7 + 1], S[i * 7]]); return r; };
	const row = (name, m) => [...document.querySelectorAll('#stats tr[data-k]')].find(tr => { const r = D.stats[+tr.dataset.k]; return D.ents[r.e][0].endsWith(name) && r.m === m; });
	const CASE = window.TK_CASE || 'whole';

	if (CASE === 'whole') {
		/* issue 37.4: a task that never terminates is drawn where it ran,
		   not over the whole trace */
		const tm = bars('Tmr_Svc'), sum = tm.reduce((a, b) => a + b[1], 0);
		ok(tm.length === 1 && tm[0][0] === 0 && sum === 10,
		   'Tmr_Svc (never terminates) is drawn as its run interval, 10 ns from 0 (bars: ' + JSON.stringify(tm) + ')');
		const rn = bars('Runner');
		ok(JSON.stringify(rn.map(b => [b[0], b[1]])) === '[[10,40],[60,40],[300,50]]',
		   'Runner: its three run intervals, the preemptions left out (' + JSON.stringify(rn) + ')');
		ok(rn.every(b => b[2] === 0) && bars('Isr').every(b => b[2] === 0), 'run intervals are flat: a preempting ISR is not nested');
	}
	const pre = document.createElement('pre');
	pre.id = 'tk-test';
	pre.textContent = out.join('\n');
	document.body.appendChild(pre);
})();
