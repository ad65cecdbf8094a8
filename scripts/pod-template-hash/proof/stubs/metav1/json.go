// The JSON decoding of meta/v1's Time and FieldsV1, as apimachinery's time.go and helpers.go do it,
// for the generated meta/v1 mirror the proof program compiles (methods cannot be mirrored as data).
package v1

import (
	"bytes"
	"encoding/json"
	"time"
)

// upstream: (*Time).UnmarshalJSON
func (t *Time) UnmarshalJSON(b []byte) error {
	if len(b) == 4 && string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, str)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// upstream: (*FieldsV1).UnmarshalJSON (the default build, where FieldsV1 holds Raw []byte)
func (f *FieldsV1) UnmarshalJSON(b []byte) error {
	if !bytes.Equal(b, []byte("null")) {
		f.Raw = append([]byte(nil), b...)
	}
	return nil
}
