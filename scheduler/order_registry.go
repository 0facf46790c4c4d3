package scheduler

import (
	"fmt"
	"sort"
	"strings"
)

// KeyTaskOrder is the configuration key that names the task order.
const KeyTaskOrder = "ebb.scheduler.scheme"

// taskOrders is the registry of task orders by ebb.scheduler.scheme: one
// literal, built here and nowhere else (no init() side effects), so adding
// an order is one line in this function.
func taskOrders() map[string]TaskOrder {
	return map[string]TaskOrder{
		"fifo": fifo{},
		"fair": fair{},
		"ras":  ras{},
	}
}

// TaskOrderNames lists the registered task orders, sorted.
func TaskOrderNames() []string {
	orders := taskOrders()
	names := make([]string, 0, len(orders))
	for name := range orders {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// NewTaskOrder returns the task order registered under name.
func NewTaskOrder(name string) (TaskOrder, error) {
	o, ok := taskOrders()[name]
	if !ok {
		return nil, &UnknownTaskOrderError{Name: name}
	}
	return o, nil
}

// UnknownTaskOrderError is an ebb.scheduler.scheme value with no order.
type UnknownTaskOrderError struct {
	Name string
}

func (e *UnknownTaskOrderError) Error() string {
	return fmt.Sprintf("%s = %q: want one of %s", KeyTaskOrder, e.Name, strings.Join(TaskOrderNames(), ", "))
}
