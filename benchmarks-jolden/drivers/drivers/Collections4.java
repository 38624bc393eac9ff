package drivers;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.apache.commons.collections4.CollectionUtils;
import org.apache.commons.collections4.IteratorUtils;
import org.apache.commons.collections4.ListUtils;

/**
 * Calls one commons-collections4 method of the programs table (`src/programs.rs`) on inputs of
 * size `n`, built before the call: `java drivers.Collections4 union|addAll|toList n`.
 */
public final class Collections4 {
    private Collections4() {
    }

    public static void main(String[] args) {
        String method = args[0];
        int n = Integer.parseInt(args[1]);
        List<Integer> numbers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            numbers.add(i);
        }
        if (method.equals("union")) {
            List<Integer> more = new ArrayList<>(numbers);
            System.out.println(ListUtils.union(numbers, more).size());
        } else if (method.equals("addAll")) {
            Integer[] elements = numbers.toArray(new Integer[0]);
            List<Integer> target = new ArrayList<>();
            System.out.println(CollectionUtils.addAll(target, elements));
        } else if (method.equals("toList")) {
            Iterator<Integer> iterator = numbers.iterator();
            System.out.println(IteratorUtils.toList(iterator).size());
        } else {
            throw new IllegalArgumentException("unknown method " + method);
        }
    }
}
