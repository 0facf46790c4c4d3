package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/kubeclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

// TestKubeSubmitPutsS3SettingsInTheSecret: with the history on S3, `ebb
// submit --master kubernetes` puts the fs.s3a.* settings, credentials
// included, in the application's Secret as a credentials file the AM pod
// mounts where HADOOP_TOKEN_FILE_LOCATION names it; the ConfigMap keeps
// the endpoint and never a credential. Without S3 settings, and with no
// AWS credentials in the caller's environment, nothing is added.
func TestKubeSubmitPutsS3SettingsInTheSecret(t *testing.T) {
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
		t.Setenv(k, "")
	}
	const access, secretKey = "AKIAEBBTESTKEY", "ebb/test+secret"
	c, _, err := conf.Load(conf.LoadOptions{Getenv: func(string) string { return "" }, Sets: map[string]string{
		"mr3.k8s.namespace": "batch", "ebb.history.dir": "s3a://hist/ebb",
		"fs.s3a.endpoint": "http://127.0.0.1:9000", "fs.s3a.access.key": access, "fs.s3a.secret.key": secretKey}})
	if err != nil {
		t.Fatal(err)
	}
	so, err := kubeSubmitOptions(c, submitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "batch"}})
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authv1.SelfSubjectAccessReview)
		r.Status.Allowed = true
		return true, r, nil
	})
	ctx := context.Background()
	pod, err := kubeclient.Submit(ctx, cs, so, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := cs.CoreV1().ConfigMaps("batch").Get(ctx, so.App+"-conf", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	xml := cm.Data["mr3-site.xml"]
	if strings.Contains(xml, access) || strings.Contains(xml, secretKey) || strings.Contains(xml, "fs.s3a.secret.key") {
		t.Errorf("the ConfigMap holds an S3 credential:\n%s", xml)
	}
	if !strings.Contains(xml, "http://127.0.0.1:9000") {
		t.Errorf("the ConfigMap lacks the endpoint:\n%s", xml)
	}
	sec, err := cs.CoreV1().Secrets("batch").Get(ctx, so.WorkerSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	creds, err := yarnrpc.ReadCredentials(bytes.NewReader(sec.Data["s3-credentials"]))
	if err != nil {
		t.Fatalf("the Secret's s3-credentials: %v", err)
	}
	got := map[string]string{}
	for _, s := range creds.Secrets {
		got[s.Alias] = string(s.Secret)
	}
	if got["fs.s3a.access.key"] != access || got["fs.s3a.secret.key"] != secretKey || got["fs.s3a.endpoint"] != "http://127.0.0.1:9000" {
		t.Errorf("the Secret's S3 settings %v", got)
	}
	ctr := pod.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range ctr.Env {
		env[e.Name] = e.Value
	}
	i := slices.IndexFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.Secret != nil })
	if env["HADOOP_TOKEN_FILE_LOCATION"] != "/etc/ebb-s3/credentials" || i < 0 || pod.Spec.Volumes[i].Secret.SecretName != so.WorkerSecret ||
		*pod.Spec.Volumes[i].Secret.DefaultMode != 0o400 {
		t.Errorf("AM pod: env %v volumes %+v, want the Secret's s3-credentials at HADOOP_TOKEN_FILE_LOCATION, mode 0400", env, pod.Spec.Volumes)
	}
	// No S3 settings: no credentials file.
	plain, _, err := conf.Load(conf.LoadOptions{Getenv: func(string) string { return "" }, Sets: map[string]string{"mr3.k8s.namespace": "batch"}})
	if err != nil {
		t.Fatal(err)
	}
	if so, err := kubeSubmitOptions(plain, submitOptions{}); err != nil || so.S3Credentials != nil {
		t.Errorf("without S3 settings: %d bytes of S3 credentials, %v", len(so.S3Credentials), err)
	}
}
