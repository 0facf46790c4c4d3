package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// SweepPlot is the file name (without extension) of the sweep's plot.
const SweepPlot = "sweep"

// SweepPoint is one policy run at one value of the swept knob.
type SweepPoint struct {
	Policy string
	Value  string // "" for a policy the knob does not apply to (one point)
	Summary
}

// Sweep is a knob's sweep: every policy's figures at every value, in run
// order.
type Sweep struct {
	Key    string
	Points []SweepPoint
}

// cost is the y value: cost over the oracle's when there was an oracle
// run, else the cost itself.
func (s Sweep) cost(p SweepPoint) float64 {
	if !math.IsNaN(p.CostToOracle) {
		return p.CostToOracle
	}
	return p.Cost
}

func (s Sweep) relative() bool {
	for _, p := range s.Points {
		if !math.IsNaN(p.CostToOracle) {
			return true
		}
	}
	return false
}

type jsonSweepPoint struct {
	Value string `json:"value"`
	jsonPolicy
}

// WriteJSON writes the sweep as one indented JSON object: the key and,
// per point, the value ("" when the key does not apply) and the figures
// WriteJSON of a Report gives.
func (s Sweep) WriteJSON(w io.Writer) error {
	out := struct {
		Key    string           `json:"key"`
		Points []jsonSweepPoint `json:"points"`
	}{Key: s.Key, Points: []jsonSweepPoint{}}
	for _, p := range s.Points {
		out.Points = append(out.Points, jsonSweepPoint{Value: p.Value, jsonPolicy: toJSON(p.Summary)})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// WriteTable writes one row per point.
func (s Sweep) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	_, _ = fmt.Fprintf(tw, "policy\t%s\tnode-h\tpaid h\tcost\tx oracle\tp95 slowdown\tjobs done\t\n", s.Key)
	for _, p := range s.Points {
		v := p.Value
		if v == "" {
			v = "-"
		}
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t\n", p.Policy, v, num(p.NodeHours, 2), num(p.PaidHours, 2),
			num(p.Cost, 2), num(p.CostToOracle, 2), num(p.P95Slowdown, 2), p.JobsCompleted, p.Jobs)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := fmt.Fprintf(w, "sweep of %s; '-': the key does not apply to the policy (one run)\n", s.Key)
	return err
}

// WritePlot draws cost (over the oracle's, when there is one) against p95
// slowdown, one curve per policy through its values in sweep order, each
// point labelled with its value, into dir as PNG and SVG. Slowdown is on
// a log scale: policies differ by orders of magnitude. Points with an
// unmeasured slowdown are left out.
func (s Sweep) WritePlot(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: sweep plot: %w", err)
	}
	p := plot.New()
	p.Title.Text = "Cost against p95 slowdown, sweeping " + s.Key
	p.X.Label.Text = "p95 slowdown (log)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Label.Text = "cost"
	if s.relative() {
		p.Y.Label.Text = "cost / oracle's cost"
	}
	p.Legend.Top = true
	var order []string
	byPolicy := map[string][]SweepPoint{}
	for _, pt := range s.Points {
		if _, ok := byPolicy[pt.Policy]; !ok {
			order = append(order, pt.Policy)
		}
		byPolicy[pt.Policy] = append(byPolicy[pt.Policy], pt)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, name := range order {
		var xys plotter.XYs
		var labels []string
		for _, pt := range byPolicy[name] {
			x, y := pt.P95Slowdown, s.cost(pt)
			if math.IsNaN(x) || math.IsNaN(y) || x <= 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
			lo, hi = math.Min(lo, x), math.Max(hi, x)
			labels = append(labels, pt.Value)
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("report: sweep plot, policy %s: %w", name, err)
		}
		line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(name, line, points)
		lbl, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return nil, fmt.Errorf("report: sweep plot labels, policy %s: %w", name, err)
		}
		p.Add(lbl)
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("report: sweep plot: no point has a measured p95 slowdown (run the reference policy too)")
	}
	// A margin either side, so a single slowdown still spans the log axis.
	p.X.Min, p.X.Max = lo/1.5, hi*1.5
	p.Y.Min = 0
	var files []string
	for _, ext := range plotFormats {
		path := filepath.Join(dir, SweepPlot+"."+ext)
		if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
			return files, fmt.Errorf("report: plot %s: %w", path, err)
		}
		files = append(files, path)
	}
	return files, nil
}
