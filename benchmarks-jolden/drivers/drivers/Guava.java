package drivers;

import java.util.ArrayList;
import java.util.List;

import com.google.common.base.Joiner;
import com.google.common.base.Strings;
import com.google.common.collect.Lists;

/**
 * Calls one guava method of the programs table (`src/programs.rs`) on inputs of size `n`, built
 * before the call: `java drivers.Guava repeat|newArrayList|join n`.
 */
public final class Guava {
    private Guava() {
    }

    public static void main(String[] args) {
        String method = args[0];
        int n = Integer.parseInt(args[1]);
        if (method.equals("repeat")) {
            System.out.println(Strings.repeat("ab", n).length());
        } else if (method.equals("newArrayList")) {
            Integer[] elements = new Integer[n];
            for (int i = 0; i < n; i++) {
                elements[i] = i;
            }
            System.out.println(Lists.newArrayList(elements).size());
        } else if (method.equals("join")) {
            List<String> words = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                words.add("w" + i);
            }
            Joiner joiner = Joiner.on(',');
            System.out.println(joiner.join(words).length());
        } else {
            throw new IllegalArgumentException("unknown method " + method);
        }
    }
}
