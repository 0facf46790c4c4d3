// Package kerberos logs ebb in to a Kerberos realm, as a Hadoop client on a
// secure cluster must: from the user's ticket cache (KRB5CCNAME, as kinit
// leaves it) or from a keytab (--principal and --keytab), with krb5.conf
// from KRB5_CONFIG or /etc/krb5.conf. It owns the login, the service tickets
// for Hadoop's RPC servers, the principal names (_HOST, the short user name)
// and errors that tell the user what to run or set.
//
// It wraps github.com/jcmturner/gokrb5/v8 and keeps its types at this edge,
// except the *client.Client that colinmarc/hdfs wants for HDFS.
package kerberos
