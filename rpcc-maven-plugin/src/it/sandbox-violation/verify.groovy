// The build fails in check-functions with the sandbox's message, the rule, and the line of the use
def log = new File(basedir, 'build.log').text
def file = new File(basedir, 'src/main/java/com/acme/Checkout.java').canonicalPath
def expected = "${file}:12:"
def line = log.readLines().find { it.contains(expected) }
assert line != null : "no ${expected} in build.log"
assert line ==~ /.*Checkout\.java:12:\d+: .*/ : line
assert line.contains('java.io.File') : line
assert line.contains('which the sandbox does not allow') : line
assert line.contains('(rule: files)') : line
assert line.contains('com.acme.Checkout.apply') : line
assert !new File(basedir, 'target/classes/META-INF/rpcc/functions/com/acme/Checkout.java').exists()
// every problem is listed: also a type javac inferred, explained, and a function without a source file of its own
assert log.contains('rpcc server would refuse chaining functions of this project (3 problems)')
def mixed = new File(basedir, 'src/main/java/com/acme/Mixed.java').canonicalPath
def inferred = log.readLines().find { it.contains("${mixed}:") }
assert inferred ==~ /.*Mixed\.java:1[23]:\d+: chaining function com\.acme\.Mixed uses java\.io\.Serializable .*/ : inferred
assert inferred.contains('javac inferred it') && inferred.contains('List.<Object>of(...)') : inferred
def discount = new File(basedir, 'target/classes/com/acme/Discount.class').canonicalPath
assert log.contains("${discount}: chaining function com.acme.Discount has no source file com/acme/Discount.java")
return true
