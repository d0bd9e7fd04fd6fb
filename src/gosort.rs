//! Go's `sort.Slice`, reproduced step for step so that equal elements end up
//! where upstream puts them.
//!
//! `sort.Slice` is not stable: for more than 12 elements its
//! pattern-defeating quicksort (pdqsort, Go 1.19 and later) moves equal
//! elements around, and upstream output shows that order. The order is still
//! a pure function of the input (the only "random" numbers come from an
//! xorshift generator seeded with the length), so reproducing every
//! comparison and swap reproduces the result. Up to 12 elements Go uses
//! insertion sort, which is stable.
//!
//! The generator follows Go 1.24 and later (shifts 13, 7, 17; Go 1.19–1.23
//! used 13, 17, 5), which is what upstream HEAD is built with. It only runs
//! after a badly unbalanced partition, which inputs of the sizes `opm` sorts
//! rarely produce.

/// Sorts `data` exactly as Go's `sort.Slice(data, less)` does.
pub fn slice<T>(data: &mut [T], less: impl FnMut(&T, &T) -> bool) {
    let length = data.len();
    let limit = bits_len(length);
    let mut sorter = Sorter { data, less };
    sorter.pdqsort(0, length, limit);
}

/// Go's `bits.Len`: the number of bits needed to represent `n`.
fn bits_len(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()) as usize
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

struct Sorter<'a, T, F> {
    data: &'a mut [T],
    less: F,
}

impl<T, F: FnMut(&T, &T) -> bool> Sorter<'_, T, F> {
    fn less(&mut self, i: usize, j: usize) -> bool {
        (self.less)(&self.data[i], &self.data[j])
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.data.swap(i, j);
    }

    fn insertion_sort(&mut self, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && self.less(j, j - 1) {
                self.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    /// Restores the heap property of `data[first+lo .. first+hi]` from `lo` down.
    fn sift_down(&mut self, lo: usize, hi: usize, first: usize) {
        let mut root = lo;
        loop {
            let mut child = 2 * root + 1;
            if child >= hi {
                return;
            }
            if child + 1 < hi && self.less(first + child, first + child + 1) {
                child += 1;
            }
            if !self.less(first + root, first + child) {
                return;
            }
            self.swap(first + root, first + child);
            root = child;
        }
    }

    fn heap_sort(&mut self, a: usize, b: usize) {
        let hi = b - a;
        for i in (0..=(hi - 1) / 2).rev() {
            self.sift_down(i, hi, a);
        }
        for i in (0..hi).rev() {
            self.swap(a, a + i);
            self.sift_down(0, i, a);
        }
    }

    fn pdqsort(&mut self, mut a: usize, mut b: usize, mut limit: usize) {
        const MAX_INSERTION: usize = 12;
        let mut was_balanced = true;
        let mut was_partitioned = true;
        loop {
            let length = b - a;
            if length <= MAX_INSERTION {
                self.insertion_sort(a, b);
                return;
            }
            if limit == 0 {
                self.heap_sort(a, b);
                return;
            }
            if !was_balanced {
                self.break_patterns(a, b);
                limit -= 1;
            }
            let (mut pivot, mut hint) = self.choose_pivot(a, b);
            if hint == Hint::Decreasing {
                self.reverse_range(a, b);
                pivot = (b - 1) - (pivot - a);
                hint = Hint::Increasing;
            }
            if was_balanced
                && was_partitioned
                && hint == Hint::Increasing
                && self.partial_insertion_sort(a, b)
            {
                return;
            }
            // Go compares with the element just before `a` in the whole
            // slice, so this test is on absolute indices.
            if a > 0 && !self.less(a - 1, pivot) {
                a = self.partition_equal(a, b, pivot);
                continue;
            }
            let (mid, already_partitioned) = self.partition(a, b, pivot);
            was_partitioned = already_partitioned;
            let (left, right) = (mid - a, b - mid);
            let balance_threshold = length / 8;
            if left < right {
                was_balanced = left >= balance_threshold;
                self.pdqsort(a, mid, limit);
                a = mid + 1;
            } else {
                was_balanced = right >= balance_threshold;
                self.pdqsort(mid + 1, b, limit);
                b = mid;
            }
        }
    }

    /// One quicksort partition around `data[pivot]`; returns the pivot's new
    /// index and whether nothing had to move.
    fn partition(&mut self, a: usize, b: usize, pivot: usize) -> (usize, bool) {
        self.swap(a, pivot);
        let (_, j, swapped) = self.cross(a + 1, b - 1, |sorter, k| sorter.less(k, a));
        self.swap(j, a);
        (j, !swapped)
    }

    /// Splits `data[a..b]` (nothing smaller than the pivot) into elements
    /// equal to the pivot, then greater ones; returns where the greater start.
    fn partition_equal(&mut self, a: usize, b: usize, pivot: usize) -> usize {
        self.swap(a, pivot);
        let (i, _, _) = self.cross(a + 1, b - 1, |sorter, k| !sorter.less(a, k));
        i
    }

    /// The scan both partitions make (Go writes it out in each, and in
    /// `partition` unrolls its first round to notice that nothing moves): `i`
    /// moves right past elements that go `left` of the pivot, `j` moves left
    /// past those that do not, and the pair where both stop is swapped, until
    /// they cross. Returns where `i` and `j` stop, and whether anything was
    /// swapped.
    fn cross(
        &mut self,
        mut i: usize,
        mut j: usize,
        left: impl Fn(&mut Self, usize) -> bool,
    ) -> (usize, usize, bool) {
        let mut swapped = false;
        loop {
            while i <= j && left(self, i) {
                i += 1;
            }
            while i <= j && !left(self, j) {
                j -= 1;
            }
            if i > j {
                return (i, j, swapped);
            }
            self.swap(i, j);
            swapped = true;
            i += 1;
            j -= 1;
        }
    }

    /// Fixes up to five out-of-order neighbours; true when `data[a..b]` ends sorted.
    fn partial_insertion_sort(&mut self, a: usize, b: usize) -> bool {
        const MAX_STEPS: usize = 5;
        const SHORTEST_SHIFTING: usize = 50;
        let mut i = a + 1;
        for _ in 0..MAX_STEPS {
            while i < b && !self.less(i, i - 1) {
                i += 1;
            }
            if i == b {
                return true;
            }
            if b - a < SHORTEST_SHIFTING {
                return false;
            }
            self.swap(i, i - 1);
            if i - a >= 2 {
                // Go stops at index 1 of the whole slice, not at `a + 1`.
                let mut j = i - 1;
                while j >= 1 {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j -= 1;
                }
            }
            if b - i >= 2 {
                let mut j = i + 1;
                while j < b {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j += 1;
                }
            }
        }
        false
    }

    /// Swaps three elements near the middle with pseudo-random others.
    fn break_patterns(&mut self, a: usize, b: usize) {
        let length = b - a;
        if length < 8 {
            return;
        }
        let mut random = length as u64;
        let modulus = 1usize << bits_len(length);
        let middle = a + (length / 4) * 2;
        for idx in middle - 1..=middle + 1 {
            random ^= random << 13;
            random ^= random >> 7;
            random ^= random << 17;
            let mut other = (random as usize) & (modulus - 1);
            if other >= length {
                other -= length;
            }
            self.swap(idx, a + other);
        }
    }

    /// Median of three (or Tukey's ninther from 50 elements on); the hint
    /// says whether the samples looked sorted or reversed.
    fn choose_pivot(&mut self, a: usize, b: usize) -> (usize, Hint) {
        const SHORTEST_NINTHER: usize = 50;
        const MAX_SWAPS: usize = 4 * 3;
        let l = b - a;
        let mut swaps = 0;
        let mut i = a + l / 4;
        let mut j = a + l / 4 * 2;
        let mut k = a + l / 4 * 3;
        if l >= 8 {
            if l >= SHORTEST_NINTHER {
                i = self.median(i - 1, i, i + 1, &mut swaps);
                j = self.median(j - 1, j, j + 1, &mut swaps);
                k = self.median(k - 1, k, k + 1, &mut swaps);
            }
            j = self.median(i, j, k, &mut swaps);
        }
        let hint = match swaps {
            0 => Hint::Increasing,
            MAX_SWAPS => Hint::Decreasing,
            _ => Hint::Unknown,
        };
        (j, hint)
    }

    fn order2(&mut self, a: usize, b: usize, swaps: &mut usize) -> (usize, usize) {
        if self.less(b, a) {
            *swaps += 1;
            (b, a)
        } else {
            (a, b)
        }
    }

    fn median(&mut self, a: usize, b: usize, c: usize, swaps: &mut usize) -> usize {
        let (a, b) = self.order2(a, b, swaps);
        let (b, _) = self.order2(b, c, swaps);
        let (_, b) = self.order2(a, b, swaps);
        b
    }

    fn reverse_range(&mut self, a: usize, b: usize) {
        let (mut i, mut j) = (a, b - 1);
        while i < j {
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::slice;

    /// Sorts `keys` tagged with their index; returns the indexes in sorted
    /// order and the number of comparisons.
    fn run(keys: &[u32]) -> (Vec<usize>, usize) {
        let mut tagged: Vec<(u32, usize)> = keys.iter().copied().zip(0..).collect();
        let mut compared = 0;
        slice(&mut tagged, |a, b| {
            compared += 1;
            a.0 < b.0
        });
        (tagged.iter().map(|t| t.1).collect(), compared)
    }

    // Every expectation below was produced by Go's own sort.Slice (pdqsort_func
    // of sort/zsortfunc.go, with the Go 1.24+ xorshift), sorting the same keys
    // by `<` and recording the original index of each result and the number of
    // calls to less.

    #[test]
    fn up_to_twelve_is_insertion_sort_and_stable() {
        let (order, less) = run(&[3, 1, 3, 1, 2, 2, 3, 1, 0, 0, 2, 1]);
        assert_eq!(order, [8, 9, 1, 3, 7, 11, 4, 5, 10, 0, 2, 6]);
        assert_eq!(less, 46);
    }

    #[test]
    fn thirteen_organ_pipe_is_not_stable() {
        let (order, less) = run(&[0, 1, 2, 3, 4, 5, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(order, [0, 1, 12, 2, 11, 3, 10, 9, 4, 8, 5, 7, 6]);
        assert_eq!(less, 34);
    }

    /// An unbalanced partition makes pdqsort scatter elements with its
    /// xorshift generator; Go before 1.24 would give
    /// [6, 0, 2, 3, 4, 5, 1, 7, 13, 9, 8, 11, 12, 10].
    #[test]
    fn break_patterns_uses_go_1_24_xorshift() {
        let (order, less) = run(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0]);
        assert_eq!(order, [6, 7, 2, 3, 4, 5, 13, 0, 1, 12, 10, 11, 9, 8]);
        assert_eq!(less, 57);
    }

    /// Sixty-three keys with many duplicates: Tukey's ninther, partial
    /// insertion sort with shifting, partitions of equal elements.
    #[test]
    fn many_duplicates() {
        let keys = [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 2, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
            1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 2, 2, 2, 2, 2, 3, 2, 3, 3, 1, 3, 3, 3, 3, 3,
            3, 3, 3, 3, 3,
        ];
        let (order, less) = run(&keys);
        assert_eq!(
            order,
            [
                15, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 41, 13, 0, 30, 16, 17, 18, 19, 20, 21, 22,
                23, 24, 25, 26, 27, 28, 29, 52, 31, 38, 47, 34, 35, 36, 37, 32, 39, 40, 14, 42, 43,
                44, 45, 46, 33, 49, 55, 61, 51, 12, 53, 54, 57, 48, 50, 58, 59, 60, 56, 62
            ]
        );
        assert_eq!(less, 228);
    }

    /// McIlroy's adversary against Go's pdqsort: enough bad pivots that it
    /// falls back to heapsort.
    #[test]
    fn adversary_falls_back_to_heapsort() {
        let keys = [
            2, 3, 4, 5, 6, 7, 8, 9, 10, 37, 0, 11, 20, 27, 39, 12, 34, 36, 35, 13, 1, 23, 38, 17,
            19, 33, 15, 14, 24, 28, 21, 22, 40, 32, 31, 30, 29, 18, 16, 26, 25,
        ];
        let (order, less) = run(&keys);
        assert_eq!(
            order,
            [
                10, 20, 0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 15, 19, 27, 26, 38, 23, 37, 24, 12, 30, 31,
                21, 28, 40, 39, 13, 29, 36, 35, 34, 33, 25, 16, 18, 17, 9, 22, 14, 32
            ]
        );
        assert_eq!(less, 353);
    }

    #[test]
    fn empty_and_single() {
        assert_eq!(run(&[]), (Vec::new(), 0));
        assert_eq!(run(&[7]).0, [0]);
    }
}
