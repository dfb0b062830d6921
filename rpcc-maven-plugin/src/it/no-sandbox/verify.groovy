// <sandbox>false</sandbox>: compiled only, so a function that reads a file passes and is packaged
assert new File(basedir, 'target/classes/META-INF/rpcc/functions/com/acme/Checkout.java').isFile()
return true
