package build

import (
	"testing"

	"github.com/bibleplatform/platform/build/licensehtml"
)

// TestParagraphsHTMLIsLicenceHTML: the licence text a DBL import makes
// from the bundle's copyright, whatever that holds, passes the check
// AddLicense applies.
func TestParagraphsHTMLIsLicenceHTML(t *testing.T) {
	got := paragraphsHTML("© 2024 <script>alert(1)</script> & Co", `<a href="javascript:x">`, "", "<!-- x -->\n</p>")
	want := "<p>© 2024 &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co</p><p>&lt;a href=&#34;javascript:x&#34;&gt;</p><p>&lt;!-- x --&gt;\n&lt;/p&gt;</p>"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if err := licensehtml.Check(got); err != nil {
		t.Error(err)
	}
}
