// The build fails in check-functions with the server's compile error, as file:line:column: message
def log = new File(basedir, 'build.log').text
def file = new File(basedir, 'src/main/java/com/acme/Checkout.java').canonicalPath
def expected = "${file}:16:"
assert log.contains('rpcc-maven-plugin') && log.contains('check-functions')
assert log.contains(expected) : "no ${expected} in build.log"
def line = log.readLines().find { it.contains(expected) }
// Instant.until(Temporal, TemporalUnit) is all Java 21 has
assert line ==~ /.*Checkout\.java:16:\d+: method until in class java\.time\.Instant cannot be applied to given types.*/ : line
assert log.contains('required: java.time.temporal.Temporal,java.time.temporal.TemporalUnit')
assert !new File(basedir, 'target/classes/META-INF/rpcc/functions/com/acme/Checkout.java').exists()
return true
