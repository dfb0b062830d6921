// The build succeeds; the function's source is packaged where ChainingFunctionSource.of(Class) reads it
def source = new File(basedir, 'src/main/java/com/acme/Checkout.java')
def packaged = new File(basedir, 'target/classes/META-INF/rpcc/functions/com/acme/Checkout.java')
assert packaged.isFile()
assert packaged.getText('UTF-8') == source.getText('UTF-8')
// only chaining functions are packaged: not the records, not the abstract class
assert !new File(basedir, 'target/classes/META-INF/rpcc/functions/com/acme/Order.java').exists()
assert !new File(basedir, 'target/classes/META-INF/rpcc/functions/com/acme/Receipt.java').exists()
assert !new File(basedir, 'target/classes/META-INF/rpcc/functions/com/acme/Shop.java').exists()
assert !new File(basedir, 'target/classes/META-INF/rpcc/functions/com/acme/Pricing.java').exists()
// a sequential chain is checked and packaged as a chaining function is
assert new File(basedir, 'target/classes/META-INF/rpcc/functions/com/acme/SequentialCheckout.java').isFile()
def jar = new java.util.jar.JarFile(new File(basedir, 'target/good-function-1.0.jar'))
try {
    assert jar.getEntry('META-INF/rpcc/functions/com/acme/Checkout.java') != null
} finally {
    jar.close()
}
// and CheckoutTest ran it, ChainingFunctionSource.of(Checkout.class), at two real servers
def report = new File(basedir, 'target/surefire-reports/com.acme.CheckoutTest.txt')
assert report.isFile() && report.text.contains('Tests run: 2, Failures: 0, Errors: 0, Skipped: 0')
// the summary: Order (annotated, and scanned by <typePackages> again) and Receipt (<types>)
def log = new File(basedir, 'build.log').text
assert log.contains('rpcc: checked (compile and sandbox) 2 chaining functions [com.acme.Checkout, com.acme.SequentialCheckout] with 2 registered types')
return true
