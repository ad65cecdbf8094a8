// Command hashproof computes pod-template-hash values the way kube-controller-manager does, to give
// the TypeScript port golden vectors. It is built by scripts/pod-template-hash/regen.mjs against
// the real sources of the release being reproduced: core/v1's types.go, apimachinery's resource,
// intstr, types and util/rand packages, k8s.io/utils/dump and go-spew, copied from fetched
// checkouts into a temporary GOPATH; only meta/v1 is a generated mirror of its declarations.
//
//	hashproof -types types.json -templates templates.json -out vectors.json
//
// For each template it decodes the JSON into a v1.PodTemplateSpec, applies what the trip through
// the API server's protobuf encoding does to it (see asDecoded), then hashes it as
// controller.ComputeHash does, with and without collision counts.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"reflect"
	goruntime "runtime"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/dump"
)

// The collision counts every vector is hashed with, besides none (nil).
var collisionCounts = []int32{0, 1, 2, 3, 10, 255, 256, 65536, 2147483647, -1}

// upstream: controller.ComputeHash, with hashutil.DeepHashObject writing dump.ForHash(*template).
func computeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	hasher := fnv.New32a()
	hasher.Reset()
	_, _ = hasher.Write([]byte(dump.ForHash(*template)))
	if collisionCount != nil {
		collisionCountBytes := make([]byte, 8)
		binary.LittleEndian.PutUint32(collisionCountBytes, uint32(*collisionCount))
		_, _ = hasher.Write(collisionCountBytes)
	}
	return rand.SafeEncodeString(fmt.Sprint(hasher.Sum32()))
}

var (
	quantityType = reflect.TypeOf(resource.Quantity{})
	timeType     = reflect.TypeOf(metav1.Time{})
	fieldsV1Type = reflect.TypeOf(metav1.FieldsV1{})
)

// asDecoded turns a value decoded from the API server's JSON into the one kube-controller-manager's
// informer decodes from protobuf: repeated fields and maps with no entries are not on the wire and
// come back nil; a Quantity travels as its canonical string and is parsed again (the real
// Marshal/Unmarshal below); a Time travels as whole seconds and comes back in time.Local; a field
// with no protobuf tag does not travel at all.
func asDecoded(v reflect.Value) {
	switch v.Type() {
	case quantityType:
		q := v.Addr().Interface().(*resource.Quantity)
		wire, err := q.Marshal()
		must(err)
		var back resource.Quantity
		must(back.Unmarshal(wire))
		v.Set(reflect.ValueOf(back))
		return
	case timeType:
		// upstream: Time.Marshal writes nothing for the zero time, and Unmarshal of nothing is
		// time.Time{} (whatever Location the JSON decoding had given it).
		t := v.Addr().Interface().(*metav1.Time)
		if t.IsZero() {
			t.Time = time.Time{}
		} else {
			t.Time = time.Unix(t.Unix(), 0).Local()
		}
		return
	case fieldsV1Type:
		f := v.Addr().Interface().(*metav1.FieldsV1)
		if len(f.Raw) == 0 {
			f.Raw = nil
		}
		return
	}
	switch v.Kind() {
	case reflect.Ptr:
		if !v.IsNil() {
			asDecoded(v.Elem())
		}
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		for i := 0; i < v.Len(); i++ {
			asDecoded(v.Index(i))
		}
	case reflect.Map:
		if v.Len() == 0 {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			asDecoded(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			tag, ok := t.Field(i).Tag.Lookup("protobuf")
			if !ok || tag == "-" {
				v.Field(i).Set(reflect.Zero(t.Field(i).Type))
				continue
			}
			asDecoded(v.Field(i))
		}
	}
}

// --- the type data the TypeScript renderer uses, checked against the compiled types -------------

type typeData struct {
	Source map[string]interface{} `json:"source"`
	Types  map[string]struct {
		Name   string          `json:"name"`
		Fields [][]interface{} `json:"fields"`
		Type   string          `json:"type"`
	} `json:"types"`
}

var pkgIDs = map[string]string{
	"k8s.io/api/core/v1":                   "core/v1",
	"k8s.io/apimachinery/pkg/apis/meta/v1": "meta/v1",
	"k8s.io/apimachinery/pkg/api/resource": "resource",
	"k8s.io/apimachinery/pkg/util/intstr":  "intstr",
	"k8s.io/apimachinery/pkg/types":        "types",
	"gopkg.in/inf.v0":                      "inf",
	"math/big":                             "big",
	"time":                                 "time",
}

// encodeType writes a reflect.Type the way the generator encodes a Go type expression.
func encodeType(t reflect.Type) string {
	if t.Name() != "" {
		if t.PkgPath() == "" {
			return t.Name()
		}
		id, ok := pkgIDs[t.PkgPath()]
		if !ok {
			fail("type %s from unexpected package %s", t, t.PkgPath())
		}
		return id + "." + t.Name()
	}
	switch t.Kind() {
	case reflect.Ptr:
		return "*" + encodeType(t.Elem())
	case reflect.Slice:
		return "[]" + encodeType(t.Elem())
	case reflect.Map:
		return "map[" + encodeType(t.Key()) + "]" + encodeType(t.Elem())
	}
	fail("cannot encode type %s", t)
	return ""
}

// checkTypes compares the generated data with every named type reflect reaches from
// PodTemplateSpec: the same set of types, and for each its printed name, its fields in order
// with their types, JSON keys and protobuf presence, or its underlying type.
func checkTypes(data *typeData) int {
	reached := map[string]reflect.Type{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if t.Name() != "" && t.PkgPath() != "" {
			key := encodeType(t)
			if _, seen := reached[key]; seen {
				return
			}
			reached[key] = t
		}
		switch t.Kind() {
		case reflect.Ptr, reflect.Slice:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				walk(t.Field(i).Type)
			}
		}
	}
	walk(reflect.TypeOf(corev1.PodTemplateSpec{}))

	var problems []string
	for key, t := range reached {
		d, ok := data.Types[key]
		if !ok {
			problems = append(problems, "missing from the data: "+key)
			continue
		}
		if d.Name != t.String() {
			problems = append(problems, fmt.Sprintf("%s: name %q, reflect prints %q", key, d.Name, t.String()))
		}
		if t.Kind() != reflect.Struct {
			var under string
			switch t.Kind() {
			case reflect.Slice:
				under = "[]" + encodeType(t.Elem())
			case reflect.Map:
				under = "map[" + encodeType(t.Key()) + "]" + encodeType(t.Elem())
			default:
				under = t.Kind().String()
			}
			if d.Type != under || d.Fields != nil {
				problems = append(problems, fmt.Sprintf("%s: underlying %q, reflect has %q", key, d.Type, under))
			}
			continue
		}
		if len(d.Fields) != t.NumField() {
			problems = append(problems, fmt.Sprintf("%s: %d fields, reflect has %d", key, len(d.Fields), t.NumField()))
			continue
		}
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			want := []interface{}{sf.Name, jsonKey(sf), encodeType(sf.Type), float64(protoFlag(sf))}
			if !reflect.DeepEqual(d.Fields[i], want) {
				problems = append(problems, fmt.Sprintf("%s field %d: data %v, reflect %v", key, i, d.Fields[i], want))
			}
		}
	}
	for key := range data.Types {
		if _, ok := reached[key]; !ok {
			problems = append(problems, "in the data but not reachable: "+key)
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		fail("type data does not match the compiled types:\n  %s", strings.Join(problems, "\n  "))
	}
	return len(reached)
}

func jsonKey(sf reflect.StructField) interface{} {
	if sf.PkgPath != "" { // unexported
		return nil
	}
	tag, ok := sf.Tag.Lookup("json")
	name := strings.Split(tag, ",")[0]
	if name == "-" {
		return nil
	}
	if ok && strings.Contains(tag, ",inline") {
		return ""
	}
	if name == "" {
		return sf.Name
	}
	return name
}

func protoFlag(sf reflect.StructField) int {
	tag, ok := sf.Tag.Lookup("protobuf")
	if ok && tag != "-" {
		return 1
	}
	return 0
}

// --- vectors -------------------------------------------------------------------------------------

type templateCase struct {
	Name     string          `json:"name"`
	Template json.RawMessage `json:"template"`
	KeepText bool            `json:"keepText,omitempty"`
}

type vector struct {
	Name       string            `json:"name"`
	Template   json.RawMessage   `json:"template"`
	SpewLength int               `json:"spewLength"`
	SpewSHA256 string            `json:"spewSha256"`
	Spew       string            `json:"spew,omitempty"`
	Hash       string            `json:"hash"`
	Collisions map[string]string `json:"collisions"`
}

func main() {
	typesPath := flag.String("types", "", "the generator's JSON type data")
	templatesPath := flag.String("templates", "", "JSON array of {name, template}")
	outPath := flag.String("out", "", "where to write the vectors")
	flag.Parse()

	// Local is read by spew through *time.Location for non-zero times; make sure it is loaded,
	// as it is in a kube-controller-manager that has logged anything.
	_ = time.Now().Local().String()

	var data typeData
	must(json.Unmarshal(readFile(*typesPath), &data))
	n := checkTypes(&data)

	var cases []templateCase
	must(json.Unmarshal(readFile(*templatesPath), &cases))
	vectors := make([]vector, 0, len(cases))
	for _, c := range cases {
		var t corev1.PodTemplateSpec
		dec := json.NewDecoder(bytes.NewReader(c.Template))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&t); err != nil {
			fail("%s: %v", c.Name, err)
		}
		asDecoded(reflect.ValueOf(&t).Elem())
		text := dump.ForHash(t)
		sum := sha256.Sum256([]byte(text))
		v := vector{
			Name:       c.Name,
			Template:   c.Template,
			SpewLength: len(text),
			SpewSHA256: hex.EncodeToString(sum[:]),
			Hash:       computeHash(&t, nil),
			Collisions: map[string]string{},
		}
		if c.KeepText {
			v.Spew = text
		}
		for _, cc := range collisionCounts {
			cc := cc
			v.Collisions[fmt.Sprint(cc)] = computeHash(&t, &cc)
		}
		vectors = append(vectors, v)
	}
	// One vector per line, so that a regeneration's diff shows which templates changed.
	header, err := json.Marshal(map[string]interface{}{
		"source":          data.Source,
		"checkedTypes":    n,
		"go":              goVersion(),
		"collisionCounts": collisionCounts,
	})
	must(err)
	var out bytes.Buffer
	out.Write(header[:len(header)-1])
	out.WriteString(`,"vectors":[` + "\n")
	for i, v := range vectors {
		line, err := json.Marshal(v)
		must(err)
		out.Write(line)
		if i < len(vectors)-1 {
			out.WriteString(",")
		}
		out.WriteString("\n")
	}
	out.WriteString("]}\n")
	must(os.WriteFile(*outPath, out.Bytes(), 0o644))
	fmt.Fprintf(os.Stderr, "hashproof: %d types checked, %d vectors -> %s\n", n, len(vectors), *outPath)
}

func goVersion() string {
	return goruntime.Version()
}

func readFile(path string) []byte {
	b, err := os.ReadFile(path)
	must(err)
	return b
}

func must(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "hashproof: "+format+"\n", args...)
	os.Exit(1)
}
