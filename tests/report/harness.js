/*
 * harness.js - appended by report_test.sh to a copy of a report page, run by
 * headless Chromium after the page's own script.  It uses the page as a
 * person would (wheel on the timeline, clicks on metric rows, scrolling the
 * tables) and checks what is drawn, pixel by pixel where it matters.  Each
 * check writes one line "ok: ..." or "FAIL: ..." into #tk-test.
 */
(function () {
	'use strict';
	const out = [];
	const ok = (c, what) => out.push((c ? 'ok: ' : 'FAIL: ') + what);
	const $ = id => document.getElementById(id);
	const text = id => ($(id) || {}).textContent || '';
	const status = $('tk-status'), cv = $('tl'), ctx = cv.getContext('2d');
	const LEFT = +cv.dataset.plotLeft, W = cv.width, H = cv.height;
	const S = D.slices, NSL = S.length / 7;
	const view = () => status.dataset.view.split(',').map(Number);
	const X = t => { const [t0, t1] = view(); return LEFT + (t - t0) / (t1 - t0) * (W - LEFT - 4); };
	/* pixels of the timeline canvas in a box: [r,g,b,a] per pixel */
	function pixels(c, x, y, w, h) {
		const d = c.getContext('2d').getImageData(x, y, w, h).data, px = [];
		for (let i = 0; i < d.length; i += 4) px.push([d[i], d[i + 1], d[i + 2], d[i + 3]]);
		return px;
	}
	const coloured = p => p[3] > 0 && Math.max(p[0], p[1], p[2]) - Math.min(p[0], p[1], p[2]) > 40;
	function wheel(t, dy) {
		const r = cv.getBoundingClientRect(), x = X(t);
		cv.dispatchEvent(new WheelEvent('wheel', { deltaY: dy, clientX: r.left + x, clientY: r.top + 40, bubbles: true, cancelable: true }));
	}
	const reset = () => $('reset').click();

	/* the debug line is not shown */
	ok(getComputedStyle(status).display === 'none' && document.body.innerText.indexOf('drawn:') < 0,
	   'the status line "drawn: ..." is not visible');

	/* at most 12 lanes spread over many (the first and the last among them) */
	const spread = n => n <= 16 ? [...Array(n).keys()] : [...new Set([...Array(12).keys()].map(k => Math.round(k * (n - 1) / 11)))];
	const LANES = spread(D.lanes.length);

	/* 0: no canvas is larger than the browser draws (Chromium: 32,767
	   pixels a side, 268,435,456 in all), however many lanes and cores */
	const big = [...document.querySelectorAll('canvas')].filter(c => c.width > 32767 || c.height > 32767 || c.width * c.height > 268435456);
	ok(!big.length, 'every canvas within the browser\'s limits (timeline ' + cv.width + ' x ' + cv.height + ', load ' + $('load').width + ' x ' + $('load').height +
	   (big.length ? '; too large: ' + big.map(c => (c.id || 'a histogram') + ' ' + c.width + ' x ' + c.height).join(', ') : '') + ')');

	/* 1: zoomed into the middle of the longest slice of each lane, the lane
	   names stay readable: nothing coloured left of the plot, names drawn */
	LANES.forEach(li => {
		const ln = D.lanes[li];
		let best = -1;
		for (let i = 0; i < NSL; i++)
			if (S[i * 7] === li && S[i * 7 + 1] === 0 && (best < 0 || S[i * 7 + 4] > S[best * 7 + 4])) best = i;
		if (best < 0 || S[best * 7 + 4] < 4) return;
		reset();
		window.tkShowLane(li);
		const s = S[best * 7 + 3], d = S[best * 7 + 4], t = s + d / 2;
		for (let k = 0; k < 200 && view()[0] <= s; k++) wheel(t, -100);
		const [t0] = view();
		if (!(t0 > s)) { ok(false, 'lane ' + ln.name + ': could not zoom past the start of a slice'); return; }
		const px = pixels(cv, 0, 0, LEFT - 1, H);
		ok(!px.some(coloured), 'lane ' + ln.name + ': zoomed in, no slice is drawn over the lane names');
		ok(px.some(p => p[3] > 0), 'lane ' + ln.name + ': the lane names are drawn');
	});

	/* 1b: the whole trace, each lane scrolled into view: its name is
	   drawn left of the plot and its slices (those the page holds whole, at
	   depth 0) in it, in colour */
	LANES.forEach(li => {
		const ln = D.lanes[li];
		reset();
		const y = window.tkShowLane(li), [v0, v1] = (status.dataset.lanes || '0,0').split(',').map(Number);
		ok(y >= 30 && y + 16 <= H && li >= v0 && li < v1, 'lane ' + ln.name + ': scrolled into view (top at ' + y + ' of ' + H + ' px, lanes ' + v0 + '-' + v1 + ' drawn)');
		ok(pixels(cv, 0, y, LEFT - 4, 16).some(p => p[3] > 100), 'lane ' + ln.name + ': its name is drawn');
		let n = 0;
		for (let i = 0; i < NSL; i++) if (S[i * 7] === li && S[i * 7 + 1] === 0) n++;
		if (n) ok(pixels(cv, LEFT, y + 2, W - LEFT, 12).some(coloured), 'lane ' + ln.name + ': its slices at depth 0 (' + n + ') are drawn in colour');
	});

	/* 1c: lanes that do not fit: scrolling the box redraws the lanes now
	   in view, and a wheel over the lane names scrolls (is not a zoom) */
	const wrap = $('tl-wrap');
	if (wrap.scrollHeight > wrap.clientHeight + 40) {
		reset();
		wrap.scrollTop = 0;
		wrap.dispatchEvent(new Event('scroll'));
		const before = status.dataset.lanes;
		wrap.scrollTop = wrap.scrollHeight;
		wrap.dispatchEvent(new Event('scroll'));
		const after = status.dataset.lanes, last = +after.split(',')[1];
		ok(before !== after && last === D.lanes.length, 'scrolled to the bottom, the last lanes are drawn (' + before + ' -> ' + after + ')');
		const r = cv.getBoundingClientRect(), v = view().join(','),
			ev = new WheelEvent('wheel', { deltaY: 100, clientX: r.left + 10, clientY: r.top + 60, bubbles: true, cancelable: true });
		cv.dispatchEvent(ev);
		ok(!ev.defaultPrevented && view().join(',') === v, 'a wheel over the lane names is left to scroll the box, no zoom');
		wrap.scrollTop = 0;
		wrap.dispatchEvent(new Event('scroll'));
	}

	/* 2: a click on a metric row shows its worst instance in view (every
	   row with an instance, at most 60 spread over the table): outlined
	   when its entity has slices (the page holds the worst instances'
	   slices even when it summarises the short ones), else its time marked
	   by a band (a semaphore, a signal) */
	const hasSlices = new Set();
	for (let i = 0; i < NSL; i++) hasSlices.add(S[i * 7 + 2]);
	const rows = [...document.querySelectorAll('#stats tr[data-k]')].filter(tr => D.stats[+tr.dataset.k].inst !== null);
	const step = Math.max(1, Math.ceil(rows.length / 60));
	let clicked = 0;
	for (let k = 0; k < rows.length; k += step) {
		const r = D.stats[+rows[k].dataset.k], what = ENTNAME(r.e) + ' ' + r.m + ' instance ' + r.inst;
		reset();
		rows[k].click();
		clicked++;
		const sel = status.dataset.sel;
		if (!sel) { ok(false, what + ': nothing selected after the click'); continue; }
		const [x0, y0, w, h] = sel.split(',').map(Number);
		const inView = x0 + w >= LEFT && x0 <= W - 4, slice = hasSlices.has(r.e);
		ok(inView && text('worst').indexOf(slice ? 'outlined' : 'its time is marked') >= 0,
		   what + ': ' + (slice ? 'its slice is outlined' : 'its time is marked') + ' in view (' + sel + ', ' + text('worst') + ')');
		/* the black outline left of the slice, or the band's left edge */
		const xl = slice ? Math.max(LEFT - 2, x0 - 2) : x0, p = pixels(cv, xl, y0 + (h >> 1), 1, 1)[0];
		ok(p[3] === 255 && p[0] < 60 && p[1] < 60 && p[2] < 60, what + ": the outline is drawn (pixel " + p + " at x " + xl + ")");
	}
	if (rows.length) ok(clicked > 0, 'metric rows clicked: ' + clicked);
	/* very many entities: a row of "All entities" marks its worst RT */
	[...document.querySelectorAll('#enttab tr[data-k]')].slice(0, 3).forEach(tr => {
		reset();
		tr.click();
		const sel = status.dataset.sel, [x0, , w] = (sel || '0,0,0,0').split(',').map(Number);
		ok(sel && x0 + w >= LEFT && x0 <= W - 4 && text('worst').indexOf('worst RT of ') === 0,
		   'All entities, ' + tr.firstChild.textContent + ': its worst RT is shown (' + sel + ', ' + text('worst') + ')');
	});
	reset();

	/* 3: the core load shows every core, and says why when nothing ran */
	const lc = $('load');
	ok($('load-wrap').scrollHeight >= 60 * D.lanes.length, 'the load has a band per core (' + $('load-wrap').scrollHeight + ' px of bands)');
	/* each core scrolled into view: its name, its band and its share */
	LANES.forEach(li => {
		const ln = D.lanes[li], y0 = window.tkShowCore(li), bins = D.load[li] || [];
		const [c0, c1] = (status.dataset.cores || '0,0').split(',').map(Number);
		ok(y0 >= 0 && y0 + 50 <= lc.height && li >= c0 && li < c1, 'load of ' + ln.name + ': scrolled into view (top at ' + y0 + ' of ' + lc.height + ' px)');
		ok(pixels(lc, 0, y0, LEFT - 4, 50).some(p => p[3] > 100), 'load of ' + ln.name + ': its name is drawn');
		ok(pixels(lc, lc.width - 100, y0 + 2, 96, 13).some(p => p[3] === 255 && p[0] < 100), 'load of ' + ln.name + ': its share is written');
		/* a window busy at least a tenth of its time is a visible rise */
		const tall = bins.some((v, b) => v * 10 >= Math.min(D.binw, D.span - b * D.binw) && b * D.binw < D.span);
		if (tall) ok(pixels(lc, LEFT, y0, lc.width - LEFT - 110, 50).some(coloured), 'load of ' + ln.name + ': its busy time is drawn in colour');
	});
	const busy = D.load.reduce((a, b) => a + b.reduce((x, y) => x + y, 0), 0);
	ok(busy > 0 || text('loadnote').length > 20, 'the load is shown, or a note says why there is none: "' + text('loadnote') + '"');

	/* every section shows something or says why it cannot */
	ok(D.lanes.length > 0 || D.instants.length > 0 || D.instantBins.length > 0 || text('dense').indexOf('Nothing to draw') === 0,
	   'the timeline has lanes, or a note says why: "' + text('dense') + '"');
	ok(D.stats.length > 0 ? document.querySelectorAll('#stats tr[data-k]').length === D.stats.length : text('statsnote').indexOf('No metrics') === 0,
	   'the metric table has its rows, or a note says why there are none');
	ok(D.hists.length > 0 || text('hists').length > 10, 'the histograms, or a note says why there are none');

	/* 5: the headers of the scrolling tables stay in view */
	document.querySelectorAll('.scroll').forEach(sc => {
		const th = sc.querySelector('th');
		if (!th || sc.scrollHeight <= sc.clientHeight + 40) return;
		sc.scrollTop = sc.scrollHeight;
		const dy = th.getBoundingClientRect().top - sc.getBoundingClientRect().top;
		ok(Math.abs(dy) <= 1, 'table ' + sc.querySelector('table').id + ' scrolled: its header stays at the top (' + dy + ' px)');
		sc.scrollTop = 0;
	});

	/* 6: every histogram has labelled axes: counts left of the plot,
	   values and the metric's unit under it */
	const hs = document.querySelectorAll('.hist canvas');
	hs.forEach((c, k) => {
		const left = pixels(c, 0, 0, 36, c.height - 34), under = pixels(c, 40, c.height - 30, c.width - 40, 30);
		const ink = px => px.filter(p => p[3] > 100).length;
		ok(c.height >= 100 && ink(left) > 30 && ink(under) > 60, 'histogram ' + k + ': axes labelled (' + ink(left) + ', ' + ink(under) + ' px of text)');
	});

	/* 7: no "1 instances" and the like anywhere */
	const bad = document.body.innerText.match(/(^|[^\d.,])1 (instances|cores|slices|events|entities|processes|problems|rows|windows)\b/);
	ok(!bad, 'singular after 1' + (bad ? ': "' + bad[0] + '"' : ''));

	function ENTNAME(e) { return D.ents[e] ? D.ents[e][0] : '?'; }
	const pre = document.createElement('pre');
	pre.id = 'tk-test';
	pre.textContent = out.join('\n');
	document.body.appendChild(pre);
})();
