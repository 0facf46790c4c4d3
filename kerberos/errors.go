package kerberos

import (
	"errors"
	"strings"
)

// What went wrong, by what the user does next. Match with errors.Is.
var (
	// ErrNoTicket: no ticket cache, or one without a ticket-granting ticket.
	ErrNoTicket = errors.New("no ticket")
	// ErrTicketExpired: the cache's ticket-granting ticket has expired.
	ErrTicketExpired = errors.New("ticket expired")
	// ErrWrongPrincipal: the keytab or the KDC does not know the principal,
	// or the key does not match (a stale keytab).
	ErrWrongPrincipal = errors.New("wrong principal or key")
	// ErrKDCUnreachable: no KDC of the realm answered in time.
	ErrKDCUnreachable = errors.New("KDC unreachable")
	// ErrUnknownService: the KDC has no such service principal (check
	// yarn.resourcemanager.principal / dfs.namenode.kerberos.principal).
	ErrUnknownService = errors.New("unknown service principal")
	// ErrConfig: krb5.conf, the keytab or the cache cannot be read.
	ErrConfig = errors.New("configuration problem")
)

// Error is a failed login or ticket request: the kind (one of the Err
// values above), who, a sentence saying what to run or set, and the cause.
type Error struct {
	Kind      error
	Principal string // may be empty when unknown
	Hint      string // what to do, e.g. "run: kinit ebb@EXAMPLE.COM"
	Err       error  // the underlying cause, often from gokrb5
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("kerberos: ")
	b.WriteString(e.Kind.Error())
	if e.Principal != "" {
		b.WriteString(" for ")
		b.WriteString(e.Principal)
	}
	if e.Hint != "" {
		b.WriteString(": ")
		b.WriteString(e.Hint)
	}
	if e.Err != nil {
		b.WriteString(" (")
		b.WriteString(shorten(e.Err.Error()))
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap gives both the kind and the cause to errors.Is / errors.As.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// shorten keeps gokrb5's message readable: its errors repeat the chain of
// calls ("[Root cause: X] X: a < X: b"); the last link names the cause.
func shorten(s string) string {
	if i := strings.LastIndex(s, " < "); i >= 0 {
		s = s[i+3:]
	}
	if strings.HasPrefix(s, "[Root cause: ") {
		if i := strings.Index(s, "] "); i >= 0 {
			s = s[i+2:]
		}
	}
	return strings.TrimSpace(s)
}

// classify maps a gokrb5 error, which carries its kind only as text (a
// KRB-ERROR code name or a root-cause tag), to one of ours.
func classify(err error) error {
	s := err.Error()
	switch {
	case strings.Contains(s, "KDC_ERR_S_PRINCIPAL_UNKNOWN"):
		return ErrUnknownService
	case strings.Contains(s, "KDC_ERR_C_PRINCIPAL_UNKNOWN"),
		strings.Contains(s, "KDC_ERR_PREAUTH_FAILED"),
		strings.Contains(s, "KRB_AP_ERR_BAD_INTEGRITY"),
		strings.Contains(s, "Decrypting_Error"),
		strings.Contains(s, "could not get key"), strings.Contains(s, "matching key not found"):
		return ErrWrongPrincipal
	case strings.Contains(s, "KRB_AP_ERR_TKT_EXPIRED"), strings.Contains(s, "TGT has expired"):
		return ErrTicketExpired
	case strings.Contains(s, "Networking_Error"), strings.Contains(s, "connection refused"),
		strings.Contains(s, "i/o timeout"), strings.Contains(s, "no KDC"):
		return ErrKDCUnreachable
	}
	return ErrConfig
}
