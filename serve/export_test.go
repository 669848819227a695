package serve

// RaceEnabled is raceEnabled for the tests of package serve_test.
const RaceEnabled = raceEnabled
