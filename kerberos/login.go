package kerberos

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// Options say where the credentials are. The zero value logs in from the
// ticket cache the environment names, as the Hadoop tools do.
type Options struct {
	// Principal and Keytab (both or neither): log in from the keytab, as
	// spark-submit's --principal/--keytab. A principal without @REALM is in
	// krb5.conf's default realm.
	Principal string
	Keytab    string
	// CCache is the ticket cache; "" means $KRB5CCNAME, else /tmp/krb5cc_UID.
	CCache string
	// Krb5Conf is krb5.conf; "" means $KRB5_CONFIG, else /etc/krb5.conf.
	Krb5Conf string
	// Getenv replaces os.Getenv (tests). Nil means os.Getenv.
	Getenv func(string) string
	// Now is the time a cached ticket is checked against. Zero means the
	// wall clock (the login is IO at the edge, not policy).
	Now time.Time
}

// Login is a logged-in Kerberos identity.
type Login struct {
	cl        *client.Client
	principal string // name@REALM
	source    string // where the credentials came from, for messages
	fromCache bool
}

// New logs in: from the keytab if Options name one (one AS exchange with
// the KDC), else from the ticket cache (no KDC contact until a service
// ticket is needed). ctx bounds the KDC exchange; gokrb5 itself gives up on
// each KDC after 5 s.
func New(ctx context.Context, o Options) (*Login, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	cfg, err := loadConfig(o.Krb5Conf, getenv)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Keytab != "" && o.Principal != "":
		return keytabLogin(ctx, cfg, o.Principal, o.Keytab)
	case o.Keytab != "" || o.Principal != "":
		return nil, &Error{Kind: ErrConfig, Principal: o.Principal,
			Hint: "--principal and --keytab go together: give both, or neither to use the ticket cache"}
	}
	return cacheLogin(cfg, cachePath(o.CCache, getenv), now, guessPrincipal(cfg, getenv))
}

// guessPrincipal is the principal a user without a ticket most likely
// needs: their login name in krb5.conf's default realm.
func guessPrincipal(cfg *config.Config, getenv func(string) string) string {
	name := getenv("USER")
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	if name == "" || cfg.LibDefaults.DefaultRealm == "" {
		return "PRINCIPAL"
	}
	return name + "@" + cfg.LibDefaults.DefaultRealm
}

// Principal is the logged-in name, e.g. "ebb@EXAMPLE.COM".
func (l *Login) Principal() string { return l.principal }

// ShortName is the user name Hadoop gives this principal by its DEFAULT
// auth_to_local rule in the default realm: the first component.
func (l *Login) ShortName() string { return ShortName(l.principal) }

// Client is gokrb5's client, for libraries that take one (colinmarc/hdfs).
func (l *Login) Client() *client.Client { return l.cl }

// FromKeytab says whether the login can renew itself (a keytab) or lasts
// only as long as the cached ticket.
func (l *Login) FromKeytab() bool { return !l.fromCache }

// Close stops the keytab login's background renewal.
func (l *Login) Close() { l.cl.Destroy() }

// ServiceTicket returns a ticket and its session key for spn, a service
// principal such as "hadoop/nn.example.com@EXAMPLE.COM" (no _HOST: see
// ServicePrincipal). The KDC exchange runs under ctx.
func (l *Login) ServiceTicket(ctx context.Context, spn string) (messages.Ticket, types.EncryptionKey, error) {
	name, _ := splitRealm(spn)
	type result struct {
		tkt messages.Ticket
		key types.EncryptionKey
		err error
	}
	ch := make(chan result, 1)
	go func() {
		t, k, err := l.cl.GetServiceTicket(name)
		ch <- result{t, k, err}
	}()
	select {
	case <-ctx.Done():
		return messages.Ticket{}, types.EncryptionKey{}, l.fail(ErrKDCUnreachable, spn, ctx.Err())
	case r := <-ch:
		if r.err != nil {
			return r.tkt, r.key, l.fail(classify(r.err), spn, r.err)
		}
		return r.tkt, r.key, nil
	}
}

// fail builds the error for a failed ticket request, with the hint that
// fits the kind and how this login was made.
func (l *Login) fail(kind error, spn string, cause error) error {
	e := &Error{Kind: kind, Principal: l.principal, Err: cause}
	switch kind {
	case ErrUnknownService:
		e.Hint = fmt.Sprintf("the KDC does not know %s: check yarn.resourcemanager.principal / dfs.namenode.kerberos.principal", spn)
	case ErrKDCUnreachable:
		e.Hint = fmt.Sprintf("no KDC answered for a ticket to %s: check the [realms] kdc entries in krb5.conf (KRB5_CONFIG) and that the KDC runs", spn)
	case ErrTicketExpired, ErrWrongPrincipal, ErrNoTicket:
		e.Hint = l.reloginHint()
	default:
		e.Hint = fmt.Sprintf("getting a ticket for %s with credentials from %s", spn, l.source)
	}
	return e
}

func (l *Login) reloginHint() string {
	if l.fromCache {
		return fmt.Sprintf("run: kinit %s (ticket cache %s), or pass --principal and --keytab", l.principal, l.source)
	}
	return fmt.Sprintf("check that keytab %s holds a current key for %s", l.source, l.principal)
}

// ConfigPath is the krb5.conf a login with Options.Krb5Conf = explicit
// reads: explicit, else the first existing file of $KRB5_CONFIG, else
// /etc/krb5.conf. `ebb submit --keytab` ships that file with the keytab,
// so the AM logs in against the realm the client did.
func ConfigPath(explicit string) string { return configPath(explicit, os.Getenv) }

func configPath(path string, getenv func(string) string) string {
	if path == "" {
		// KRB5_CONFIG may list several files; the first that exists wins
		// (MIT merges them; one is what ebb needs).
		for _, p := range strings.Split(getenv("KRB5_CONFIG"), ":") {
			if p == "" {
				continue
			}
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		path = "/etc/krb5.conf"
	}
	return path
}

func loadConfig(path string, getenv func(string) string) (*config.Config, error) {
	path = configPath(path, getenv)
	cfg, err := config.Load(path)
	if err != nil {
		return nil, &Error{Kind: ErrConfig, Err: err,
			Hint: fmt.Sprintf("cannot read krb5.conf %s: set KRB5_CONFIG to your realm's krb5.conf", path)}
	}
	return cfg, nil
}

// cachePath resolves the ticket cache as MIT Kerberos does for FILE caches.
func cachePath(explicit string, getenv func(string) string) string {
	p := explicit
	if p == "" {
		p = getenv("KRB5CCNAME")
	}
	if p == "" {
		p = fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
	}
	return p
}

func cacheLogin(cfg *config.Config, path string, now time.Time, guess string) (*Login, error) {
	file, ok := strings.CutPrefix(path, "FILE:")
	if !ok && strings.Contains(path, ":") && !strings.HasPrefix(path, "/") {
		return nil, &Error{Kind: ErrConfig, Err: fmt.Errorf("cache type of %q", path),
			Hint: "only FILE: ticket caches are supported: set KRB5CCNAME=FILE:/tmp/krb5cc_$(id -u) and run kinit, or pass --principal and --keytab"}
	}
	cc, err := credentials.LoadCCache(file)
	if err != nil {
		kind := ErrConfig
		if errors.Is(err, os.ErrNotExist) {
			kind = ErrNoTicket
		}
		return nil, &Error{Kind: kind, Principal: guess, Err: err,
			Hint: fmt.Sprintf("no ticket cache at %s: run: kinit %s (or set KRB5CCNAME to your ticket cache), or pass --principal and --keytab", file, guess)}
	}
	principal := ccPrincipal(cc)
	tgt, ok := cc.GetEntry(types.PrincipalName{NameType: nametype.KRB_NT_SRV_INST,
		NameString: []string{"krbtgt", cc.DefaultPrincipal.Realm}})
	if !ok {
		return nil, &Error{Kind: ErrNoTicket, Principal: principal,
			Hint: fmt.Sprintf("ticket cache %s holds no ticket-granting ticket: run: kinit %s", file, principal)}
	}
	if !now.Before(tgt.EndTime) {
		return nil, &Error{Kind: ErrTicketExpired, Principal: principal,
			Hint: fmt.Sprintf("the ticket in %s expired at %s: run: kinit %s, or pass --principal and --keytab",
				file, tgt.EndTime.UTC().Format(time.RFC3339), principal)}
	}
	cl, err := client.NewFromCCache(cc, cfg, client.DisablePAFXFAST(true))
	if err != nil {
		return nil, &Error{Kind: ErrConfig, Principal: principal, Err: err,
			Hint: fmt.Sprintf("ticket cache %s is unreadable: run: kinit %s", file, principal)}
	}
	return &Login{cl: cl, principal: principal, source: "FILE:" + file, fromCache: true}, nil
}

func ccPrincipal(cc *credentials.CCache) string {
	return strings.Join(cc.DefaultPrincipal.PrincipalName.NameString, "/") + "@" + cc.DefaultPrincipal.Realm
}

func keytabLogin(ctx context.Context, cfg *config.Config, principal, path string) (*Login, error) {
	name, realm := splitRealm(principal)
	if realm == "" {
		realm = cfg.LibDefaults.DefaultRealm
	}
	full := name + "@" + realm
	kt, err := keytab.Load(path)
	if err != nil {
		return nil, &Error{Kind: ErrConfig, Principal: full, Err: err,
			Hint: fmt.Sprintf("cannot read keytab %s: check --keytab", path)}
	}
	if !keytabHolds(kt, name, realm) {
		return nil, &Error{Kind: ErrWrongPrincipal, Principal: full,
			Hint: fmt.Sprintf("keytab %s has no key for it (it holds: %s): check --principal", path, keytabPrincipals(kt))}
	}
	cl := client.NewWithKeytab(name, realm, kt, cfg, client.DisablePAFXFAST(true))
	l := &Login{cl: cl, principal: full, source: path}
	done := make(chan error, 1)
	go func() { done <- cl.Login() }()
	select {
	case <-ctx.Done():
		return nil, &Error{Kind: ErrKDCUnreachable, Principal: full, Err: ctx.Err(),
			Hint: fmt.Sprintf("no KDC for realm %s answered: check the [realms] kdc entries in krb5.conf (KRB5_CONFIG) and that the KDC runs", realm)}
	case err := <-done:
		if err == nil {
			return l, nil
		}
		e := &Error{Kind: classify(err), Principal: full, Err: err}
		switch e.Kind {
		case ErrKDCUnreachable:
			e.Hint = fmt.Sprintf("no KDC for realm %s answered: check the [realms] kdc entries in krb5.conf (KRB5_CONFIG) and that the KDC runs", realm)
		case ErrWrongPrincipal:
			e.Hint = fmt.Sprintf("the KDC refused the key in %s: check --principal, or get a fresh keytab", path)
		default:
			e.Hint = fmt.Sprintf("logging in from keytab %s", path)
		}
		return nil, e
	}
}

func keytabHolds(kt *keytab.Keytab, name, realm string) bool {
	for _, e := range kt.Entries {
		if e.Principal.Realm == realm && strings.Join(e.Principal.Components, "/") == name {
			return true
		}
	}
	return false
}

func keytabPrincipals(kt *keytab.Keytab) string {
	seen := map[string]bool{}
	var out []string
	for _, e := range kt.Entries {
		p := strings.Join(e.Principal.Components, "/") + "@" + e.Principal.Realm
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, ", ")
}
