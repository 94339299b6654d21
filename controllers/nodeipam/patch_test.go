package nodeipam

import "testing"

func TestPodCIDRsPatch(t *testing.T) {
	got, err := podCIDRsPatch("4711", []string{"10.0.1.0/24", "fd00:0:0:1::/64"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"resourceVersion":"4711"},"spec":{"podCIDR":"10.0.1.0/24","podCIDRs":["10.0.1.0/24","fd00:0:0:1::/64"]}}`
	if string(got) != want {
		t.Errorf("patch = %s\nwant    %s", got, want)
	}
	// Without a resourceVersion the patch would apply to any version of the
	// node, including one that got podCIDRs meanwhile.
	if _, err := podCIDRsPatch("", []string{"10.0.1.0/24"}); err == nil {
		t.Error("a patch without resourceVersion was built")
	}
	if _, err := podCIDRsPatch("4711", nil); err == nil {
		t.Error("a patch without blocks was built")
	}
}
