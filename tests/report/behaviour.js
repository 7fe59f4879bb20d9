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
		/* the whole trace's view, kept as drawn and shown again by "whole
		   trace": the same pixels as drawn first, after a zoom and a
		   selection; not those of the other time mode (its axis) */
		const shot = () => cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
		const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
		const first = shot();
		row('Runner', 'PRE').click();
		const zoomed = shot();
		$('reset').click();
		ok(!same(zoomed, first) && same(shot(), first), 'after a zoom and a selection, "whole trace" shows the whole trace as first drawn');
		$('tmode').value = 'abs';
		$('tmode').dispatchEvent(new Event('change'));
		const abs = shot();
		$('reset').click();
		ok(!same(abs, first) && same(shot(), abs), 'absolute times: the whole trace drawn with its own axis, and again the same');
		$('tmode').value = 'rel';
		$('tmode').dispatchEvent(new Event('change'));
		ok(same(shot(), first), 'relative times again: the whole trace as first drawn');
		/* issue 37.4: a task that never terminates is drawn where it ran,
		   not over the whole trace */
		const tm = bars('Tmr_Svc'), sum = tm.reduce((a, b) => a + b[1], 0);
		ok(tm.length === 1 && tm[0][0] === 0 && sum === 10,
		   'Tmr_Svc (never terminates) is drawn as its run interval, 10 ns from 0 (bars: ' + JSON.stringify(tm) + ')');
		const rn = bars('Runner');
		ok(JSON.stringify(rn.map(b => [b[0], b[1]])) === '[[10,40],[60,40],[300,50]]',
		   'Runner: its three run intervals, the preemptions left out (' + JSON.stringify(rn) + ')');
		ok(rn.every(b => b[2] === 0) && bars('Isr').every(b => b[2] === 0), 'run intervals are flat: a preempting ISR is not nested');
		/* issue 37.19: a click on the PRE row outlines the preemption
		   (100..300 ns), not the instance */
		$('reset').click();
		row('Runner', 'PRE').click();
		const [x0, , w] = status.dataset.sel.split(',').map(Number);
		const [t0, t1] = view(), X = t => +cv.dataset.plotLeft + (t - t0) / (t1 - t0) * (cv.width - cv.dataset.plotLeft - 4);
		ok(Math.abs(x0 - X(100)) <= 1 && Math.abs(x0 + w - X(300)) <= 1 && /the preemption outlined/.test($('worst').textContent),
		   'Runner PRE: the preemption 100..300 ns is outlined (' + status.dataset.sel + ' against ' + Math.round(X(100)) + '..' + Math.round(X(300)) + ', "' + $('worst').textContent + '")');
		/* times: since the trace's first event, said; absolute offered */
		$('reset').click();
		ok(/^showing 0 ns/.test($('view').textContent) && /since the trace's first event/.test($('meta').textContent),
		   'relative times say so (' + $('view').textContent + ')');
		$('tmode').value = 'abs';
		$('tmode').dispatchEvent(new Event('change'));
		ok(/^showing 100 ns/.test($('view').textContent) && /times shown absolute/.test($('meta').textContent),
		   'absolute times: the view starts at 100 ns (' + $('view').textContent + ')');
		const at = row('Runner', 'PRE').lastChild.textContent;
		ok(at === '400 ns', 'the table\'s "at" is absolute too (' + at + ')');
		ok(/time=abs/.test(window.tkHash()), 'the time mode is in the address (' + location.hash + ')');
		$('tmode').value = 'rel';
		$('tmode').dispatchEvent(new Event('change'));
		/* the metric table: a unit per row, sorted by a heading */
		const units = [...document.querySelectorAll('#stats tr[data-k]')].map(tr => [D.stats[+tr.dataset.k].m, tr.children[3].textContent]);
		ok(units.length && units.every(([m, u]) => u === (m === 'JIT' || m === 'NPRE' ? '1' : 'µs')) && units.some(([m]) => m === 'NPRE'),
		   'the unit column: µs for times, 1 for JIT and NPRE (' + JSON.stringify(units.filter(([m]) => m === 'NPRE' || m === 'RT')) + ')');
		const th = [...document.querySelectorAll('#stats th')].find(h => /^max/.test(h.textContent));
		th.click();
		const maxes = () => [...document.querySelectorAll('#stats tr[data-k]')].map(tr => +tr.children[7].textContent);
		const up = maxes();
		ok(up.every((v, i) => !i || up[i - 1] <= v), 'a click on "max" sorts the rows by max, ascending (' + up + ')');
		[...document.querySelectorAll('#stats th')].find(h => /^max/.test(h.textContent)).click();
		const down = maxes();
		ok(down.every((v, i) => !i || down[i - 1] >= v), 'a second click sorts them descending (' + down + ')');
		/* the view in the address, both ways */
		$('reset').click();
		const r = cv.getBoundingClientRect();
		cv.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, clientX: r.left + 300, clientY: r.top + 40, bubbles: true, cancelable: true }));
		const v = view().map(Math.round).join(',');
		ok(window.tkHash() === '#view=' + v, 'a zoom is kept in the address (' + location.hash + ', view ' + v + ')');
		ok(window.tkApplyHash('#view=100,300') === '100,300', 'an address with a view shows it (' + status.dataset.view + ')');
		/* the load follows the zoom: Core_0 is busy all of 300..500 */
		const sh = ($('load').dataset.shares || '').split(',');
		ok(sh[0] === '100.00', 'the load of Core_0 over the view 100..300 ns is 100.00 % (' + sh + ')');
		window.tkApplyHash('#view=400,800');
		ok(($('load').dataset.shares || '').split(',')[0] === '0.00', 'and 0.00 % over 400..800 ns, where it is idle (' + $('load').dataset.shares + ')');
		/* the load chart has axes: text above the bands and left of them */
		const lc = $('load'), g = lc.getContext('2d'), top = +lc.dataset.top, L = +lc.dataset.plotLeft;
		const ink = (x, y, w, h) => { const d = g.getImageData(x, y, w, h).data; let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 100) n++; return n; };
		const y0 = window.tkShowCore(0);
		ok(ink(L, 0, lc.width - L, top - 6) > 40, 'the load has a time axis with labels (' + ink(L, 0, lc.width - L, top - 6) + ' px)');
		ok(ink(L - 34, y0, 30, 50) > 30, 'the load has a percent axis left of each band (' + ink(L - 34, y0, 30, 50) + ' px)');
	} else if (CASE === 'window') {
		/* issue 37.19: --start 400ns --end 1200ns keeps the lanes' order
		   and the axis of the whole trace */
		ok(D.lanes.map(l => l.name).join(',') === 'Core_0,Core_1', 'the lanes keep their order (' + D.lanes.map(l => l.name) + ')');
		ok(/^showing 320 ns/.test($('view').textContent), 'the axis goes on from the trace\'s first event (' + $('view').textContent + ')');
	} else if (CASE === 'late') {
		/* behaviour.btf 3600.123456789 s later: an absolute moment is
		   given to the ns (it was cut to 7 digits, 3600.123 s for each) */
		ok(/ from 3600\.123456889 s \(absolute/.test($('meta').textContent), 'the first event\'s time, every digit (' + $('meta').textContent + ')');
		ok(/^showing 3600\.123456889 s – 3600\.123457889 s/.test($('view').textContent), 'the view\'s edges to the ns (' + $('view').textContent + ')');
		const at = row('Runner', 'PRE').lastChild.textContent;
		ok(at === '3600.123457189 s', 'the table\'s "at" to the ns (' + at + ')');
		$('tmode').value = 'rel';
		$('tmode').dispatchEvent(new Event('change'));
		ok(row('Runner', 'PRE').lastChild.textContent === '300 ns', 'since the first event, 300 ns (' + row('Runner', 'PRE').lastChild.textContent + ')');
	} else if (CASE === 'address') {
		/* a page opened with a view in its address shows that view */
		ok(status.dataset.view === '20,60', 'opened at #view=20,60 (' + status.dataset.view + ')');
		ok($('tmode').value === 'abs' && /^showing 120 ns – 160 ns/.test($('view').textContent), 'with &time=abs, absolute times (' + $('view').textContent + ')');
	}
	const pre = document.createElement('pre');
	pre.id = 'tk-test';
	pre.textContent = out.join('\n');
	document.body.appendChild(pre);
})();
