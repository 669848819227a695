package fieldcover

import (
	"reflect"
	"testing"
)

type inner struct {
	A string
	B []int
}

type Embedded struct{ E bool }

type outer struct {
	Embedded
	In    []inner
	P     *inner
	M     map[string]inner
	N     int
	hidey int
}

func TestMissing(t *testing.T) {
	s := Set{}
	s.Add(outer{In: []inner{{A: "x"}}, M: map[string]inner{"k": {B: []int{1}}}, hidey: 1})
	got := s.Missing(reflect.TypeFor[outer]())
	want := []string{"fieldcover.outer.E", "fieldcover.outer.In.B", "fieldcover.outer.M.A", "fieldcover.outer.N", "fieldcover.outer.P", "fieldcover.outer.P.A", "fieldcover.outer.P.B"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("missing %q, want %q", got, want)
	}
	s.Add(&outer{Embedded: Embedded{E: true}, N: 1, P: &inner{A: "a", B: []int{2}},
		In: []inner{{B: []int{3}}}, M: map[string]inner{"k": {A: "y"}}})
	if got := s.Missing(reflect.TypeFor[outer]()); len(got) != 0 {
		t.Errorf("missing %q after every field was set", got)
	}
}
