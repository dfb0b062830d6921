// -Drpcc.check.skip=true: the function that breaks a sandbox rule is not checked, but still packaged
def source = new File(basedir, 'src/main/java/com/acme/Checkout.java')
def packaged = new File(basedir, 'target/classes/META-INF/rpcc/functions/com/acme/Checkout.java')
assert packaged.isFile() && packaged.getText('UTF-8') == source.getText('UTF-8')
return true
