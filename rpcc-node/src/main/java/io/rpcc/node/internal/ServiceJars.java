package io.rpcc.node.internal;

import io.rpcc.core.TypeRegistry;
import io.rpcc.node.ServiceModule;
import io.rpcc.server.RpccServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/**
 * The user's services: the jars of {@code rpcc.services.path} in a class loader of their own (whose
 * parent has rpcc), their {@link ServiceModule} providers and the {@code @ServiceMethod} classes
 * named by {@code rpcc.services.classes} (annotated on the class or on a service interface it
 * implements; the jars' service interfaces are visible to chaining functions, so sequential chains
 * can call them).
 */
public final class ServiceJars implements AutoCloseable {
    private final URLClassLoader loader;
    private final List<Path> jars;

    private ServiceJars(URLClassLoader loader, List<Path> jars) {
        this.loader = loader;
        this.jars = jars;
    }

    /** Opens the jars of {@code config}'s services directory (none if the default directory does not exist). */
    public static ServiceJars open(NodeConfig config) {
        Path dir = config.servicesPath();
        List<Path> jars = List.of();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                jars = files.filter(f -> f.getFileName().toString().endsWith(".jar") && Files.isRegularFile(f))
                        .sorted().toList();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list the services directory " + dir.toAbsolutePath(), e);
            }
        }
        List<URL> urls = new ArrayList<>();
        for (Path jar : jars) {
            try {
                urls.add(jar.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalStateException("cannot load " + jar + ": " + e.getMessage(), e);
            }
        }
        return new ServiceJars(new URLClassLoader("rpcc-services", urls.toArray(URL[]::new),
                ServiceJars.class.getClassLoader()), jars);
    }

    /** The class loader of the service jars. */
    public ClassLoader classLoader() {
        return loader;
    }

    /** The jars loaded, in name order. */
    public List<Path> jars() {
        return jars;
    }

    /**
     * Registers the services on {@code server}: every {@link ServiceModule}'s types (on a registry
     * set as the server's types), then every module, then an instance of each class named in
     * {@code rpcc.services.classes}.
     *
     * @return what was registered, for the log: module and class names
     * @throws ConfigException if a class of {@code rpcc.services.classes} cannot be loaded or used
     * @throws ServiceConfigurationError if a module cannot be loaded
     */
    public List<String> registerOn(RpccServer.Builder server, NodeConfig config, ConfigValues values) {
        List<ServiceModule> modules = ServiceLoader.load(ServiceModule.class, loader).stream()
                .map(ServiceLoader.Provider::get).toList();
        TypeRegistry.Builder types = TypeRegistry.builder();
        modules.forEach(m -> m.registerTypes(types));
        server.types(types.build());
        List<String> registered = new ArrayList<>();
        for (ServiceModule m : modules) {
            m.configure(server);
            registered.add(m.getClass().getName());
        }
        for (String className : config.servicesClasses()) {
            Object target = instantiate(className, config, values);
            try {
                server.services(target);
            } catch (IllegalArgumentException e) {
                throw values.invalid(ConfigKey.SERVICES_CLASSES, "classes with @ServiceMethod methods (" + e.getMessage() + ")");
            }
            registered.add(className);
        }
        return registered;
    }

    private Object instantiate(String className, NodeConfig config, ConfigValues values) {
        String dir = config.servicesPath().toAbsolutePath().toString();
        String where = jars.isEmpty() ? "no jars in " + dir : jars.size() + " jar(s) in " + dir;
        Class<?> type;
        try {
            type = Class.forName(className, true, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw values.invalid(ConfigKey.SERVICES_CLASSES, "classes in the service jars; " + className
                    + " cannot be loaded (" + e + "; " + where + ")");
        }
        try {
            return type.getConstructor().newInstance();
        } catch (NoSuchMethodException | IllegalAccessException | InstantiationException e) {
            throw values.invalid(ConfigKey.SERVICES_CLASSES, "public classes with a public no-argument constructor; "
                    + className + " has none");
        } catch (InvocationTargetException e) {
            throw values.invalid(ConfigKey.SERVICES_CLASSES, "classes whose constructor succeeds; " + className
                    + "'s threw " + e.getCause());
        }
    }

    @Override
    public void close() throws IOException {
        loader.close();
    }
}
