package dynamic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/bibleplatform/platform/dynamic"
)

func TestLicenses(t *testing.T) {
	e := newEnv(t)
	agreed := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	if err := e.db.Agree(context.Background(), dynamic.Agreement{LicenseID: 2, OrganizationID: orgID,
		DeveloperID: developer, AgreedAt: agreed}); err != nil {
		t.Fatal(err)
	}
	type lic struct {
		ID        int     `json:"id"`
		Name      string  `json:"name"`
		Version   int     `json:"version"`
		Org       string  `json:"organization_id"`
		HTML      string  `json:"html"`
		BibleIDs  []int32 `json:"bible_ids"`
		URI       string  `json:"uri"`
		AgreedDT  string  `json:"agreed_dt"`
		SvcUserID string  `json:"svc_user_id"`
	}
	tests := []struct {
		query  string
		status int
		want   string // ids, with agreement marks: "2@" when agreed_dt and svc_user_id are set
	}{
		{"", 200, "[1 2]"},
		{"?bible_id=9003", 200, "[2]"},
		{"?bible_id=9001", 200, "[1]"},
		{"?bible_id=4242", 204, ""},
		{"?developer_id=" + developer, 200, "[2@]"},
		{"?developer_id=" + developer + "&all_available=true", 200, "[1 2@]"},
		{"?developer_id=" + developer + "&bible_id=9001", 204, ""},
		{"?developer_id=" + otherUser, 204, ""},
		{"?developer_id=" + otherUser + "&all_available=true", 200, "[1 2]"},
		{"?all_available=true", 200, "[1 2]"},
		{"?bible_id=x", 422, ""},
		{"?developer_id=x", 422, ""},
		{"?all_available=maybe", 422, ""},
	}
	for _, tt := range tests {
		r := e.do(req{method: "GET", path: "/v1/licenses" + tt.query})
		if r.status != tt.status {
			t.Errorf("%q: status %d %s, want %d", tt.query, r.status, r.body, tt.status)
			continue
		}
		if tt.status != 200 {
			continue
		}
		var v struct{ Data []lic }
		r.json(t, &v)
		var ids []string
		for _, l := range v.Data {
			id := fmt.Sprint(l.ID)
			if l.AgreedDT != "" {
				if l.AgreedDT != "2025-03-04T05:06:07Z" || l.SvcUserID != developer {
					t.Errorf("%q: agreement %q %q", tt.query, l.AgreedDT, l.SvcUserID)
				}
				id += "@"
			}
			ids = append(ids, id)
		}
		if got := fmt.Sprint(ids); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.query, got, tt.want)
		}
	}
	// Texts come from the published content, whole.
	r := e.do(req{method: "GET", path: "/v1/licenses?bible_id=9002"})
	var v struct{ Data []map[string]any }
	json.Unmarshal(r.body, &v)
	if len(v.Data) != 1 || v.Data[0]["html"] != "<p>Reader text</p>" || v.Data[0]["uri"] != "https://reader.example/3" ||
		v.Data[0]["organization_id"] != orgID || v.Data[0]["version"] != float64(3) {
		t.Errorf("licence 2: %s", r.body)
	}
	if _, ok := v.Data[0]["open"]; ok {
		t.Error("the licence object carries the internal open flag")
	}
}
