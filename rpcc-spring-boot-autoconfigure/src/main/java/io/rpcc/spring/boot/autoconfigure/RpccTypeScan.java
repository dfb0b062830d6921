package io.rpcc.spring.boot.autoconfigure;

import io.rpcc.core.RpccType;
import io.rpcc.core.TypeRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.util.ClassUtils;

/**
 * The application's rpcc types: the {@link RpccType} classes found in {@code rpcc.types-packages}
 * (default: the auto-configuration packages, i.e. the {@code @SpringBootApplication}'s package), the
 * classes of {@code rpcc.types}, and the registrations of an application's own {@link TypeRegistry}.
 */
final class RpccTypeScan {
    private RpccTypeScan() {
    }

    /**
     * The packages to scan: {@code configured} when set (empty: none), else the auto-configuration
     * packages of {@code beanFactory} (none in a context without {@code @EnableAutoConfiguration}'s
     * package registration, such as a bare test context).
     */
    static List<String> packages(@Nullable List<String> configured, BeanFactory beanFactory) {
        if (configured != null) {
            return configured.stream().map(String::trim).filter(p -> !p.isEmpty()).toList();
        }
        return AutoConfigurationPackages.has(beanFactory) ? AutoConfigurationPackages.get(beanFactory) : List.of();
    }

    /**
     * The classes annotated with {@link RpccType} in {@code packages} and their sub-packages, sorted by
     * name: top-level and static nested classes, records, enums and interfaces alike (not only Spring
     * components), loaded with {@code classLoader}.
     */
    static List<Class<?>> scan(Collection<String> packages, Environment environment, ResourceLoader resourceLoader,
                               @Nullable ClassLoader classLoader) {
        if (packages.isEmpty()) {
            return List.of();
        }
        ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false,
                environment) {
            @Override
            protected boolean isCandidateComponent(AnnotatedBeanDefinition definition) {
                return definition.getMetadata().isIndependent(); // not only concrete classes: any type that can be named
            }
        };
        scanner.setResourceLoader(resourceLoader);
        // the class itself must carry the annotation (RpccType is not @Inherited; an annotated interface does not make its implementations types)
        scanner.addIncludeFilter(new AnnotationTypeFilter(RpccType.class, false, false));
        Set<String> names = new HashSet<>();
        for (String pkg : packages) {
            for (BeanDefinition candidate : scanner.findCandidateComponents(pkg)) {
                names.add(candidate.getBeanClassName());
            }
        }
        List<Class<?>> types = new ArrayList<>();
        for (String name : names) {
            try {
                types.add(ClassUtils.forName(name, classLoader));
            } catch (ClassNotFoundException | LinkageError e) {
                throw new IllegalStateException("cannot load @RpccType class " + name + " found in " + packages, e);
            }
        }
        types.sort(Comparator.comparing(Class::getName));
        return types;
    }

    /**
     * One registry of: the {@code application}'s registrations first (its ids and serializers), then the
     * {@code annotated} classes (with their {@link RpccType#id()}), then the {@code listed} ones (an
     * annotated class listed too keeps its annotation's id); a class already registered is skipped.
     */
    static TypeRegistry merge(@Nullable TypeRegistry application, List<Class<?>> annotated, List<Class<?>> listed) {
        TypeRegistry.Builder builder = TypeRegistry.builder();
        Set<Class<?>> registered = new HashSet<>();
        if (application != null) {
            builder.registerAll(application);
            application.registrations().forEach(r -> registered.add(r.type()));
        }
        for (Class<?> type : annotated) {
            if (registered.add(type)) {
                builder.registerAnnotated(type);
            }
        }
        for (Class<?> type : listed) {
            if (registered.add(type)) {
                if (type.isAnnotationPresent(RpccType.class)) {
                    builder.registerAnnotated(type);
                } else {
                    builder.register(type);
                }
            }
        }
        return builder.build();
    }
}
