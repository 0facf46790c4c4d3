package amhost

import (
	"net/url"
	"sync"

	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/hdfsfs"
)

// outputFS resolves DAG output locations for the AM's committer the way
// workers resolve them: plain paths on this machine, hdfs:// URLs on their
// NameNode, each dialled once, as user. Its connections live as long as
// the process (the AM's).
type outputFS struct {
	user string
	mu   sync.Mutex
	nn   map[string]*hdfsfs.FS
}

func newOutputFS(user string) *outputFS { return &outputFS{user: user, nn: map[string]*hdfsfs.FS{}} }

var _ commit.Resolver = (*outputFS)(nil).resolve

func (o *outputFS) resolve(location string) (commit.FS, string, error) {
	if _, ok := commit.LocalPath(location); ok {
		return commit.LocalResolver(location)
	}
	u, err := url.Parse(location)
	if err != nil || u.Scheme != "hdfs" || u.Host == "" {
		return nil, "", &commit.SchemeError{Location: location}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	fs, ok := o.nn[u.Host]
	if !ok {
		if fs, err = hdfsfs.Dial("hdfs://"+u.Host, o.user); err != nil {
			return nil, "", err
		}
		o.nn[u.Host] = fs
	}
	return fs.Resolve(location)
}
