package kerberos

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/spnego"
	"github.com/jcmturner/gokrb5/v8/types"
)

// fakeService is the acceptor side, with a service key and no KDC: it
// mints the ticket a KDC would have issued, checks the client's AP-REQ
// like a Hadoop server does, and offers security layers.
type fakeService struct {
	kt  *keytab.Keytab
	key types.EncryptionKey // session key of the minted ticket
}

func newFakeService(t *testing.T) (*fakeService, *client.Client, messages.Ticket) {
	t.Helper()
	kt := keytab.New()
	if err := kt.AddEntry("hadoop/localhost", "EXAMPLE.COM", "service-secret", time.Unix(1e9, 0), 1, etypeID.AES128_CTS_HMAC_SHA1_96); err != nil {
		t.Fatal(err)
	}
	cname := types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, "ebb")
	sname := types.NewPrincipalName(nametype.KRB_NT_SRV_INST, "hadoop/localhost")
	now := time.Now().UTC()
	tkt, key, err := messages.NewTicket(cname, "EXAMPLE.COM", sname, "EXAMPLE.COM", types.NewKrbFlags(), kt,
		etypeID.AES128_CTS_HMAC_SHA1_96, 1, now, now, now.Add(time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	cl := client.NewWithPassword("ebb", "EXAMPLE.COM", "unused", config.New())
	return &fakeService{kt: kt, key: key}, cl, tkt
}

// accept checks the initial token and returns the wrapped offer.
func (f *fakeService) accept(t *testing.T, initial []byte, offer byte) []byte {
	t.Helper()
	var tok spnego.KRB5Token
	if err := tok.Unmarshal(initial); err != nil {
		t.Fatalf("initial token: %v", err)
	}
	if !tok.IsAPReq() {
		t.Fatal("initial token is not an AP-REQ")
	}
	ok, creds, err := service.VerifyAPREQ(&tok.APReq, service.NewSettings(f.kt))
	if !ok || err != nil {
		t.Fatalf("AP-REQ rejected: %v", err)
	}
	if creds.UserName() != "ebb" {
		t.Errorf("AP-REQ is from %q", creds.UserName())
	}
	wt := gssapi.WrapToken{Flags: 0x01, EC: 12, Payload: []byte{offer, 0x00, 0xff, 0xff}}
	if err := wt.SetCheckSum(f.key, keyusage.GSSAPI_ACCEPTOR_SEAL); err != nil {
		t.Fatal(err)
	}
	b, err := wt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSASLGSSAPIChoosesNoLayer(t *testing.T) {
	f, cl, tkt := newFakeService(t)
	initial, step, err := saslStart(cl, tkt, f.key)
	if err != nil {
		t.Fatal(err)
	}
	// An empty challenge (no GSS output after the AP-REQ) gets an empty answer.
	if r, err := step(nil); err != nil || len(r) != 0 {
		t.Fatalf("empty challenge: %x, %v", r, err)
	}
	reply, err := step(f.accept(t, initial, LayerNone|LayerIntegrity|LayerPrivacy))
	if err != nil {
		t.Fatal(err)
	}
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(reply, false); err != nil {
		t.Fatal(err)
	}
	if ok, err := wt.Verify(f.key, keyusage.GSSAPI_INITIATOR_SEAL); !ok {
		t.Fatalf("reply checksum: %v", err)
	}
	// 1 = no security layer, max buffer 0.
	if string(wt.Payload) != "\x01\x00\x00\x00" {
		t.Errorf("reply payload %x, want 01000000", wt.Payload)
	}
	if _, err := step(reply); err == nil {
		t.Error("a second offer was accepted")
	}
}

func TestSASLGSSAPIRefusesProtection(t *testing.T) {
	f, cl, tkt := newFakeService(t)
	initial, step, err := saslStart(cl, tkt, f.key)
	if err != nil {
		t.Fatal(err)
	}
	_, err = step(f.accept(t, initial, LayerPrivacy))
	var le *LayerError
	if !errors.As(err, &le) || !errors.Is(err, ErrLayer) {
		t.Fatalf("got %v, want a LayerError", err)
	}
	for _, w := range []string{"privacy", "hadoop.rpc.protection=privacy"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q lacks %q", err, w)
		}
	}
}

func TestSASLGSSAPIRejectsForgedOffer(t *testing.T) {
	f, cl, tkt := newFakeService(t)
	initial, step, err := saslStart(cl, tkt, f.key)
	if err != nil {
		t.Fatal(err)
	}
	offer := f.accept(t, initial, LayerNone)
	offer[len(offer)-1] ^= 0xff // corrupt the checksum
	if _, err := step(offer); !errors.Is(err, ErrGSS) {
		t.Fatalf("got %v, want ErrGSS", err)
	}
}
