package report

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot files WritePlots writes, by what they show.
const (
	NodesPlot       = "nodes"
	UtilisationPlot = "utilisation"
)

// plotFormats are the file types every plot is saved as.
var plotFormats = []string{"png", "svg"}

// WritePlots draws nodes in use and memory utilisation over time, one
// line per policy, into dir (created if missing) as PNG and SVG, and
// returns the files written, in a fixed order.
func (r Report) WritePlots(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: plots: %w", err)
	}
	series := []struct {
		name, title, y string
		value          func(Sample) float64
	}{
		{NodesPlot, "Nodes in use", "nodes", func(s Sample) float64 { return float64(s.Nodes) }},
		{UtilisationPlot, "Memory utilisation of nodes in use", "used / capacity (%)", func(s Sample) float64 {
			if s.CapacityMB == 0 {
				return 0
			}
			return 100 * float64(s.UsedMB) / float64(s.CapacityMB)
		}},
	}
	var files []string
	for _, ser := range series {
		p := plot.New()
		p.Title.Text = ser.title
		p.X.Label.Text = "time (hours)"
		p.Y.Label.Text = ser.y
		p.Y.Min = 0
		p.Legend.Top = true
		for i, run := range r.runs {
			xys := make(plotter.XYs, len(run.Samples))
			for k, s := range run.Samples {
				xys[k].X = s.At.Hours()
				xys[k].Y = ser.value(s)
			}
			line, err := plotter.NewLine(xys)
			if err != nil {
				return files, fmt.Errorf("report: plot %s, policy %s: %w", ser.name, run.Policy, err)
			}
			line.Color = plotutil.Color(i)
			line.Dashes = plotutil.Dashes(i)
			line.Width = vg.Points(1)
			p.Add(line)
			p.Legend.Add(run.Policy, line)
		}
		for _, ext := range plotFormats {
			path := filepath.Join(dir, ser.name+"."+ext)
			if err := p.Save(8*vg.Inch, 4*vg.Inch, path); err != nil {
				return files, fmt.Errorf("report: plot %s: %w", path, err)
			}
			files = append(files, path)
		}
	}
	return files, nil
}
