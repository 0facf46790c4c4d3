package ui

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

// page is what every template sees.
type page struct {
	Title, Page, Root, Key string
	PollMS                 int64
	Live                   bool
	App                    AppInfo
	Uptime                 time.Duration
	Rows                   rows
	Charts                 []chart
	DAG                    *DAGDetail
	Graph                  template.HTML
	Group                  *GroupDetail
	Chart                  template.HTML
	Workers                []Worker
	// Vertex narrows a DAG page to one vertex; Limit is how many of the
	// latest attempts it lists (0: all).
	Vertex string
	Limit  int
}

// rows are the tables a page shows; the root makes their links relative.
type rows struct {
	Root        string
	DAGs        []DAG
	Groups      []Group
	Nodes       []Node
	Transitions []Transition
	Moves       []Move
}

type chart struct {
	Name string
	SVG  template.HTML // drawn by groupChart from escaped text
}

var funcs = template.FuncMap{
	"pct": func(f float64) float64 { return 100 * f },
	"frac": func(a, b int) float64 {
		return map[bool]float64{true: 0, false: float64(a) / float64(max(b, 1))}[b == 0]
	},
	"dur":  func(d time.Duration) string { return d.Round(time.Second).String() },
	"join": func(s []string) string { return strings.Join(s, ", ") },
	"ts": func(t any) string {
		switch t := t.(type) {
		case time.Time:
			return t.UTC().Format("2006-01-02 15:04:05")
		case *time.Time:
			if t != nil {
				return t.UTC().Format("2006-01-02 15:04:05")
			}
		}
		return ""
	},
	// link resolves a log URL: absolute (a NodeManager's page) as is,
	// otherwise relative to the UI's root.
	"link": func(root, u string) template.URL {
		if strings.Contains(u, "://") {
			return template.URL(u)
		}
		return template.URL(root + u)
	},
}

var templates = map[string]*template.Template{}

func init() {
	for _, name := range []string{"overview", "dag", "group", "workers"} {
		templates[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(assets, "assets/layout.html", "assets/"+name+".html"))
	}
}

func (u *UI) newPage(r *http.Request, name, title string, o Overview) *page {
	return &page{Title: title, Page: name, Root: root(r), Key: r.URL.Query().Get("key"), PollMS: u.o.Poll.Milliseconds(),
		Live: u.o.App.Finished.IsZero(), App: u.app(), Uptime: time.Duration(o.UptimeSecs * float64(time.Second)),
		Rows: rows{Root: root(r), DAGs: o.DAGs, Groups: o.Groups, Nodes: o.Nodes, Transitions: o.Transitions, Moves: o.Moves}}
}

func (u *UI) render(w http.ResponseWriter, name string, p *page) {
	var b bytes.Buffer
	if err := templates[name].ExecuteTemplate(&b, name+".html", p); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	writeBody(w, b.Bytes())
}

func (u *UI) pageOverview(w http.ResponseWriter, r *http.Request) {
	var p *page
	if err := u.read(r, func(v View) {
		o := u.overview(v)
		p = u.newPage(r, "overview", "Overview", o)
		for _, g := range o.Groups {
			if d, ok := u.groupDetail(v, g.Name); ok {
				p.Charts = append(p.Charts, chart{Name: g.Name, SVG: template.HTML(groupChart(d, v.Now()))})
			}
		}
	}); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	u.render(w, "overview", p)
}

// dagPageAttempts is how many of a DAG's latest attempts its page lists
// (and polls); each vertex's page lists all of that vertex's.
const dagPageAttempts = 200

func (u *UI) pageDAG(w http.ResponseWriter, r *http.Request) {
	u.dagPage(w, r, attemptFilter{limit: dagPageAttempts})
}

func (u *UI) pageVertex(w http.ResponseWriter, r *http.Request) {
	u.dagPage(w, r, attemptFilter{vertex: r.PathValue("vertex")})
}

func (u *UI) dagPage(w http.ResponseWriter, r *http.Request, f attemptFilter) {
	var p *page
	if err := u.read(r, func(v View) {
		d, ok := u.dagDetail(v, r.PathValue("id"), f)
		if !ok {
			return
		}
		title := "DAG " + d.Name
		if f.vertex != "" {
			if !hasVertex(d, f.vertex) {
				return
			}
			title = "Vertex " + f.vertex + " of " + d.Name
		}
		p = u.newPage(r, "dag", title, u.overview(v))
		p.DAG, p.Graph, p.Vertex, p.Limit = &d, template.HTML(dagGraph(d)), f.vertex, f.limit
	}); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if p == nil {
		http.NotFound(w, r)
		return
	}
	u.render(w, "dag", p)
}

func hasVertex(d DAGDetail, name string) bool {
	for _, v := range d.Vertices {
		if v.Name == name {
			return true
		}
	}
	return false
}

func (u *UI) pageGroup(w http.ResponseWriter, r *http.Request) {
	var p *page
	if err := u.read(r, func(v View) {
		g, ok := u.groupDetail(v, r.PathValue("name"))
		if !ok {
			return
		}
		p = u.newPage(r, "group", "Group "+g.Name, u.overview(v))
		p.Group, p.Chart = &g, template.HTML(groupChart(g, v.Now()))
		p.Rows.Groups, p.Rows.Transitions, p.Rows.Moves = []Group{g.Group}, g.Transitions, g.Moves
	}); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if p == nil {
		http.NotFound(w, r)
		return
	}
	u.render(w, "group", p)
}

func (u *UI) pageWorkers(w http.ResponseWriter, r *http.Request) {
	var p *page
	if err := u.read(r, func(v View) {
		p = u.newPage(r, "workers", "Workers and nodes", u.overview(v))
		p.Workers = u.workers(v)
	}); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	u.render(w, "workers", p)
}

var assetTypes = map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}

func serveAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	typ, ok := assetTypes[path.Ext(name)]
	b, err := assets.ReadFile("assets/" + name)
	if !ok || err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", typ)
	writeBody(w, b)
}
