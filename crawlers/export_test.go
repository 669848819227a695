package crawlers

// GenericNames exposes genericNames to the tests of package crawlers_test.
var GenericNames = genericNames
