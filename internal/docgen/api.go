package docgen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/conf"
)

// API is docs/reference/api.md: every route of the UI's JSON API and the
// fields of what it answers. The meaning of a field is its comment in the
// source of its struct, read from srcDirs (the packages that define the
// answered types, am/ui and am/core), so a field documented in code is
// documented here.
func API(srcDirs ...string) (string, error) {
	docs, err := fieldDocs(srcDirs)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(Header("the UI's routes and answer types (am/ui/api.go)", Regenerate))
	b.WriteString("# The status UI's JSON API\n\n")
	b.WriteString("The AM's status UI (the YARN tracking URL, or a local AM's UI address) answers these GET\n")
	b.WriteString("routes with JSON; its pages poll them and `ebb dag status --json` prints them. Times are\n")
	b.WriteString("RFC 3339. A route answers 404 for an unknown id and 503 when the AM's loop does not answer in time.\n\n")
	var types []reflect.Type
	seen := map[reflect.Type]bool{}
	var note func(t reflect.Type)
	note = func(t reflect.Type) {
		t = elem(t)
		if t.Kind() != reflect.Struct || t == reflect.TypeOf(time.Time{}) || seen[t] {
			return
		}
		seen[t] = true
		types = append(types, t)
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				note(f.Type)
			}
		}
	}
	for _, r := range ui.APIRoutes() {
		t := reflect.TypeOf(r.Body)
		fmt.Fprintf(&b, "## GET %s\n\n%s Answers %s.\n\n", r.Path, r.Doc, typeName(t))
		note(t)
	}
	var bare []string
	for _, t := range types {
		bare = append(bare, writeType(&b, t, docs)...)
	}
	if len(bare) > 0 {
		return "", fmt.Errorf("docgen: the API's fields must say what they mean; give these a comment: %s", strings.Join(bare, ", "))
	}
	return b.String(), nil
}

// writeType writes t's section and returns its fields that have no
// comment.
func writeType(b *strings.Builder, t reflect.Type, docs map[string]string) (bare []string) {
	fmt.Fprintf(b, "## %s\n\n", t.Name())
	if d := docs[qualified(t)]; d != "" {
		b.WriteString(d + "\n\n")
	}
	b.WriteString("| field | type | meaning |\n|---|---|---|\n")
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous {
			fmt.Fprintf(b, "| *every field of %s* | | |\n", typeName(f.Type))
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		meaning := docs[qualified(t)+"."+f.Name]
		if meaning == "" {
			bare = append(bare, qualified(t)+"."+f.Name)
		}
		if strings.Contains(opts, "omitempty") {
			meaning = strings.TrimSpace(meaning + " (absent when empty)")
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", name, typeName(f.Type), conf.MarkdownCell(meaning))
	}
	b.WriteString("\n")
	return bare
}

// qualified is a type's key in fieldDocs: its package's name and its own.
func qualified(t reflect.Type) string {
	return path.Base(t.PkgPath()) + "." + t.Name()
}

// elem is the type a field's value holds, under pointers, slices and maps.
func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return t
}

// typeName is a field's type as JSON shows it, struct names linked to
// their section.
func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return typeName(t.Elem())
	case reflect.Slice:
		return "list of " + typeName(t.Elem())
	case reflect.Map:
		return "object of " + typeName(t.Elem())
	case reflect.Struct:
		if t == reflect.TypeOf(time.Time{}) {
			return "time"
		}
		return "[" + t.Name() + "](#" + strings.ToLower(t.Name()) + ")"
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Float32, reflect.Float64:
		return "number"
	default:
		return "integer"
	}
}

// fieldDocs reads the doc and line comments of every struct type and
// field in dirs: "pkg.Type" and "pkg.Type.Field" to the comment's text on
// one line.
func fieldDocs(dirs []string) (map[string]string, error) {
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("docgen: reading the API's types: %w", err)
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
			if err != nil {
				return nil, fmt.Errorf("docgen: reading the API's types: %w", err)
			}
			collect(f, f.Name.Name+".", out)
		}
	}
	return out, nil
}

func collect(f *ast.File, pkg string, out map[string]string) {
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			ts, ok := s.(*ast.TypeSpec)
			if !ok {
				continue
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			doc := ts.Doc
			if doc == nil && len(g.Specs) == 1 {
				doc = g.Doc
			}
			out[pkg+ts.Name.Name] = oneLine(doc)
			for _, fld := range st.Fields.List {
				text := strings.TrimSpace(oneLine(fld.Doc) + " " + oneLine(fld.Comment))
				for _, n := range fld.Names {
					out[pkg+ts.Name.Name+"."+n.Name] = text
				}
			}
		}
	}
}

func oneLine(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}
