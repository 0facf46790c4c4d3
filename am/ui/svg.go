package ui

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// Charts and graphs are SVG written here on the server: no chart library
// in the browser, the same picture for a live AM and its history, and
// plain text a test can read.

var stateColor = map[string]string{"STABLE": "#e8f3e8", "SCALE_OUT": "#fde7c8", "SCALE_IN": "#dbe8fb"}

const (
	chartW, plotH, gap = 820, 150, 30
	padL, padR, padT   = 46, 90, 18
)

// groupChart draws a group's last hour: usage against the thresholds over
// its autoscaler state as background bands, each transition marked with
// its reason; below, workers (running, wanted, draining) and nodes.
func groupChart(g GroupDetail, now time.Time) string {
	var b strings.Builder
	h := padT + plotH + gap + plotH + 24
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="autoscaler of group %s">`,
		chartW, h, chartW, h, esc(g.Name))
	pts := g.Usage
	start := now.Add(-time.Hour)
	if len(pts) > 0 && pts[0].At.After(start) {
		start = pts[0].At
	}
	span := now.Sub(start)
	if span < 30*time.Second { // a young group's few points still read as a line
		span = 30 * time.Second
	}
	x := func(t time.Time) float64 {
		return padL + float64(chartW-padL-padR)*float64(t.Sub(start))/float64(span)
	}
	top1, top2 := float64(padT), float64(padT+plotH+gap)
	y1 := func(pct float64) float64 { return top1 + plotH*(1-min(max(pct, 0), 100)/100) }
	// State bands: one rectangle per run of equal states.
	for i := 0; i < len(pts); {
		j := i
		for j+1 < len(pts) && pts[j+1].State == pts[i].State {
			j++
		}
		end := now
		if j+1 < len(pts) {
			end = pts[j+1].At
		}
		fmt.Fprintf(&b, `<rect class="band" data-state="%s" x="%.1f" y="%.0f" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`,
			pts[i].State, x(pts[i].At), top1, max(x(end)-x(pts[i].At), 1), plotH, stateColor[pts[i].State], pts[i].State)
		i = j + 1
	}
	axis(&b, top1, "memory usage %", func(v float64) float64 { return y1(v) }, []float64{0, 50, 100}, "%")
	if g.Autoscaled {
		fmt.Fprintf(&b, `<line class="threshold out" x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#c0392b" stroke-dasharray="6 4"/><text x="%d" y="%.1f" class="lbl" style="fill:#c0392b">scale-out %d%%</text>`,
			padL, chartW-padR, y1(float64(g.OutThreshold)), y1(float64(g.OutThreshold)), chartW-padR+2, y1(float64(g.OutThreshold))+4, g.OutThreshold)
		fmt.Fprintf(&b, `<line class="threshold in" x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#2e6fd8" stroke-dasharray="6 4"/><text x="%d" y="%.1f" class="lbl" style="fill:#2e6fd8">scale-in %d%%</text>`,
			padL, chartW-padR, y1(float64(g.InThreshold)), y1(float64(g.InThreshold)), chartW-padR+2, y1(float64(g.InThreshold))+4, g.InThreshold)
	}
	line(&b, "usage-instant", "#9aa5b1", pts, x, func(p core.UsagePoint) float64 { return y1(p.InstantPercent) })
	line(&b, "usage", "#1d2b3a", pts, x, func(p core.UsagePoint) float64 { return y1(p.UsagePercent) })
	// Counts panel.
	most := 1
	for _, p := range pts {
		most = max(most, p.Wanted, p.Running+p.Draining, p.Nodes)
	}
	y2 := func(n float64) float64 { return top2 + plotH*(1-n/float64(most)) }
	axis(&b, top2, "workers / nodes", y2, []float64{0, float64(most)}, "")
	series := []struct {
		class, color string
		f            func(p core.UsagePoint) int
	}{
		{"wanted", "#8e44ad", func(p core.UsagePoint) int { return p.Wanted }},
		{"running", "#27ae60", func(p core.UsagePoint) int { return p.Running }},
		{"draining", "#e67e22", func(p core.UsagePoint) int { return p.Draining }},
		{"nodes", "#34495e", func(p core.UsagePoint) int { return p.Nodes }},
		{"nodes draining", "#2e6fd8", func(p core.UsagePoint) int { return p.DrainingNodes }},
	}
	for i, s := range series {
		step(&b, strings.ReplaceAll(s.class, " ", "-"), s.color, pts, x, func(p core.UsagePoint) float64 { return y2(float64(s.f(p))) })
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="lbl" style="fill:%s">■ %s</text>`, padL+120+i*90, int(top2)-6, s.color, s.class)
	}
	// Transitions: a line across both panels and the reason beside it.
	for i, t := range g.Transitions {
		if t.At.Before(start) {
			continue
		}
		tx := x(t.At)
		fmt.Fprintf(&b, `<g class="transition" data-to="%s"><title>%s → %s at %s: %s</title><line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="#555" stroke-width="1.5"/><text x="%.1f" y="%.0f" class="reason">%s: %s</text></g>`,
			esc(t.To), esc(t.From), esc(t.To), t.At.UTC().Format("15:04:05"), esc(t.Reason), tx, tx, top1, top2+plotH,
			tx+3, top1+12+float64(i%5)*12, esc(t.To), esc(shorten(t.Reason, 60)))
	}
	// Worker moves (recycling): a mark on the counts panel's floor, in
	// when a worker came to this group, out when it left.
	for _, m := range g.Moves {
		if m.At.Before(start) {
			continue
		}
		dir, shape := "in", "M0,0 L5,-9 L-5,-9 z"
		if m.From == g.Name {
			dir, shape = "out", "M0,-9 L5,0 L-5,0 z"
		}
		fmt.Fprintf(&b, `<path class="move" data-dir="%s" transform="translate(%.1f,%.0f)" d="%s" fill="#8e44ad"><title>worker %s moved %s → %s at %s</title></path>`,
			dir, x(m.At), top2+plotH, shape, esc(m.Worker), esc(m.From), esc(m.To), m.At.UTC().Format("15:04:05"))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="lbl">%s</text><text x="%d" y="%d" class="lbl" text-anchor="end">%s (UTC)</text>`,
		padL, h-6, start.UTC().Format("15:04:05"), chartW-padR, h-6, now.UTC().Format("15:04:05"))
	b.WriteString(`</svg>`)
	return b.String()
}

func axis(b *strings.Builder, top float64, title string, y func(float64) float64, ticks []float64, unit string) {
	fmt.Fprintf(b, `<rect x="%d" y="%.0f" width="%d" height="%d" fill="none" stroke="#bbb"/>`, padL, top, chartW-padL-padR, plotH)
	for _, v := range ticks {
		fmt.Fprintf(b, `<text x="%d" y="%.1f" class="lbl" text-anchor="end">%g%s</text>`, padL-4, y(v)+4, v, unit)
	}
	fmt.Fprintf(b, `<text x="%d" y="%.0f" class="lbl">%s</text>`, padL, top-5, esc(title))
}

func line(b *strings.Builder, class, color string, pts []core.UsagePoint, x func(time.Time) float64, y func(core.UsagePoint) float64) {
	if len(pts) == 0 {
		return
	}
	var d strings.Builder
	for i, p := range pts {
		fmt.Fprintf(&d, "%s%.1f,%.1f ", map[bool]string{true: "M", false: "L"}[i == 0], x(p.At), y(p))
	}
	fmt.Fprintf(b, `<path class="%s" d="%s" fill="none" stroke="%s" stroke-width="2"/>`, class, strings.TrimSpace(d.String()), color)
}

// step draws a count that holds its value until the next sample.
func step(b *strings.Builder, class, color string, pts []core.UsagePoint, x func(time.Time) float64, y func(core.UsagePoint) float64) {
	if len(pts) == 0 {
		return
	}
	var d strings.Builder
	for i, p := range pts {
		if i == 0 {
			fmt.Fprintf(&d, "M%.1f,%.1f ", x(p.At), y(p))
			continue
		}
		fmt.Fprintf(&d, "H%.1f V%.1f ", x(p.At), y(p))
	}
	fmt.Fprintf(b, `<path class="%s" d="%s" fill="none" stroke="%s" stroke-width="1.5"/>`, class, strings.TrimSpace(d.String()), color)
}

// dagGraph draws a DAG left to right in layers (a vertex's layer is its
// longest path from a source), each vertex a box with its progress.
func dagGraph(d DAGDetail) string {
	const boxW, boxH, colW, rowH = 170, 54, 290, 72
	layers := map[int][]Vertex{}
	deepest := 0
	for _, v := range d.Vertices {
		layers[v.Depth] = append(layers[v.Depth], v)
		deepest = max(deepest, v.Depth)
	}
	tallest := 1
	for _, l := range layers {
		tallest = max(tallest, len(l))
	}
	w, h := 20+(deepest+1)*colW, 20+tallest*rowH
	pos := map[string][2]float64{}
	for depth, l := range layers {
		off := float64(tallest-len(l)) * rowH / 2
		for i, v := range l {
			pos[v.Name] = [2]float64{20 + float64(depth*colW), 10 + off + float64(i*rowH)}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="graph" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="DAG %s">`, w, h, w, h, esc(d.Name))
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#777"/></marker></defs>`)
	for _, e := range d.Edges {
		f, t := pos[e.From], pos[e.To]
		x1, y1, x2, y2 := f[0]+boxW, f[1]+boxH/2, t[0], t[1]+boxH/2
		fmt.Fprintf(&b, `<g class="edge"><path d="M%.0f,%.0f C%.0f,%.0f %.0f,%.0f %.0f,%.0f" fill="none" stroke="#777" marker-end="url(#arrow)"/><text x="%.0f" y="%.0f" class="lbl" text-anchor="middle">%s</text></g>`,
			x1, y1, (x1+x2)/2, y1, (x1+x2)/2, y2, x2, y2, (x1+x2)/2, (y1+y2)/2-4, esc(e.Type))
	}
	for _, v := range d.Vertices {
		p := pos[v.Name]
		frac := core.TaskProgress(v.Succeeded, v.Tasks)
		color := "#3498db"
		if v.Succeeded == v.Tasks {
			color = "#27ae60"
		}
		fmt.Fprintf(&b, `<a href="#vertex-%s"><g class="vertex" data-name="%s"><rect x="%.0f" y="%.0f" width="%d" height="%d" rx="6" fill="#fff" stroke="#556"/>`+
			`<text x="%.0f" y="%.0f" class="vname">%s</text><text x="%.0f" y="%.0f" class="lbl">%d/%d done · %d running</text>`+
			`<rect x="%.0f" y="%.0f" width="%d" height="6" fill="#e3e7ea"/><rect class="vprogress" x="%.0f" y="%.0f" width="%.1f" height="6" fill="%s"/></g></a>`,
			esc(v.Name), esc(v.Name), p[0], p[1], boxW, boxH, p[0]+8, p[1]+17, esc(v.Name), p[0]+8, p[1]+33, v.Succeeded, v.Tasks, v.Running,
			p[0]+8, p[1]+41, boxW-16, p[0]+8, p[1]+41, float64(boxW-16)*frac, color)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func esc(s string) string { return template.HTMLEscapeString(s) }

func (u *UI) svgGroup(w http.ResponseWriter, r *http.Request) {
	var out string
	var ok bool
	if err := u.read(r, func(v View) {
		var g GroupDetail
		if g, ok = u.groupDetail(v, r.PathValue("name")); ok {
			out = groupChart(g, v.Now())
		}
	}); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	writeSVG(w, out, ok)
}

func (u *UI) svgDAG(w http.ResponseWriter, r *http.Request) {
	var out string
	var ok bool
	if err := u.read(r, func(v View) {
		var d DAGDetail
		if d, ok = u.dagDetail(v, r.PathValue("id"), attemptFilter{limit: 1}); ok {
			out = dagGraph(d)
		}
	}); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	writeSVG(w, out, ok)
}

func writeSVG(w http.ResponseWriter, svg string, ok bool) {
	if !ok {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-store")
	writeBody(w, []byte(svg))
}
