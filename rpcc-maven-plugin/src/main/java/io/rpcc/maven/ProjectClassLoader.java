package io.rpcc.maven;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Enumeration;

/**
 * The project's classes and dependencies as one loader, as a node's application loader sees them:
 * {@code target/classes} and the class path elements, over the platform loader (the JDK), not over
 * Maven's own classes. Classes and resources under {@code io.rpcc.} that the plugin has (rpcc-core
 * and what it needs) come from the plugin, so the check, the function's class and the
 * {@code ChainingFunction} it implements agree on one rpcc; other rpcc modules (rpcc-server,
 * rpcc-client...) and everything else come from the project, nothing from Maven or this plugin.
 */
final class ProjectClassLoader extends URLClassLoader {
    private static final String RPCC_CLASSES = "io.rpcc.";
    private static final String RPCC_RESOURCES = "io/rpcc/";
    /** This plugin's own package: not rpcc's runtime, so not the project's either. */
    private static final String PLUGIN_CLASSES = "io.rpcc.maven.";
    private static final String PLUGIN_RESOURCES = "io/rpcc/maven/";

    static {
        registerAsParallelCapable();
    }

    private final ClassLoader rpcc;

    /**
     * A loader over {@code urls} that takes rpcc's own classes from {@code rpcc} (the plugin's
     * loader) where it has them.
     */
    ProjectClassLoader(URL[] urls, ClassLoader rpcc) {
        super("rpcc-project", urls, ClassLoader.getPlatformClassLoader());
        this.rpcc = rpcc;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.startsWith(RPCC_CLASSES) && !name.startsWith(PLUGIN_CLASSES)) {
            try {
                return rpcc.loadClass(name);
            } catch (ClassNotFoundException e) {
                // not part of the plugin's rpcc (another rpcc module): the project's
            }
        }
        return super.loadClass(name, resolve);
    }

    @Override
    public URL getResource(String name) {
        if (name.startsWith(RPCC_RESOURCES) && !name.startsWith(PLUGIN_RESOURCES)) {
            URL url = rpcc.getResource(name);
            if (url != null) {
                return url;
            }
        }
        return super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        if (name.startsWith(RPCC_RESOURCES) && !name.startsWith(PLUGIN_RESOURCES)) {
            Enumeration<URL> fromRpcc = rpcc.getResources(name);
            if (fromRpcc.hasMoreElements()) {
                return fromRpcc;
            }
        }
        return super.getResources(name);
    }
}
