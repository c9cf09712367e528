package main

import (
	"fmt"
	"strings"
)

// year holds the port's figures for one year of the chronicle.
type year struct {
	Year     int
	TEU      int // thousand TEU handled
	Ferry    int // thousand ferry passengers
	Landings int // thousand tonnes of fish landed
	Cruise   int // cruise calls
	Revenue  int // Harbour Authority revenue, million crowns
}

var years = []year{
	{2014, 180, 610, 96, 38, 44},
	{2015, 192, 625, 91, 47, 47},
	{2016, 214, 648, 87, 59, 52},
	{2017, 238, 662, 80, 72, 58},
	{2018, 275, 690, 74, 90, 66},
	{2019, 318, 731, 71, 121, 78},
	{2020, 301, 248, 66, 0, 61},
	{2021, 352, 402, 69, 6, 70},
	{2022, 371, 655, 72, 64, 83},
	{2023, 405, 744, 75, 88, 92},
	{2024, 418, 768, 77, 90, 97},
}

func pct(cur, prev int) int {
	if prev == 0 {
		return 0
	}
	d := (cur - prev) * 100 / prev
	if d < 0 {
		return -d
	}
	return d
}

func change(cur, prev int) string {
	switch {
	case cur > prev:
		return "rose"
	case cur < prev:
		return "fell"
	}
	return "held steady"
}

// The topic sentences vary their wording by year so that the chronicle
// reads as prose, not as a table.
func cargo(y, p year, i int) string {
	if i == 0 {
		return fmt.Sprintf("The container terminal handled %d,000 TEU, almost all of it on a single berth.", y.TEU)
	}
	if y.TEU < p.TEU {
		return fmt.Sprintf("For the only time in the decade container volumes slipped, to %d,000 TEU, a fall of %d percent.", y.TEU, pct(y.TEU, p.TEU))
	}
	switch i % 4 {
	case 1:
		return fmt.Sprintf("Container throughput rose to %d,000 TEU, %d percent up on the previous year.", y.TEU, pct(y.TEU, p.TEU))
	case 2:
		return fmt.Sprintf("Cargo volumes reached %d,000 TEU as new services called at the terminal.", y.TEU)
	case 3:
		return fmt.Sprintf("The terminal's throughput climbed by %d percent, to %d,000 TEU.", pct(y.TEU, p.TEU), y.TEU)
	}
	return fmt.Sprintf("By the year's end the quay cranes had moved %d,000 TEU, against %d,000 a year earlier.", y.TEU, p.TEU)
}

func ferries(y, p year, i int) string {
	if i == 0 {
		return fmt.Sprintf("Ferries to Ostrel, the Kessa Isles and Tull carried %d,000 passengers, still on ageing diesel vessels.", y.Ferry)
	}
	switch i % 3 {
	case 0:
		return fmt.Sprintf("Ferry passenger numbers %s to %d,000.", change(y.Ferry, p.Ferry), y.Ferry)
	case 1:
		return fmt.Sprintf("The inter-island ferries carried %d,000 passengers, against %d,000 the year before.", y.Ferry, p.Ferry)
	}
	return fmt.Sprintf("On the ferry routes, %d,000 passengers crossed between Port Calder and the islands.", y.Ferry)
}

func fishing(y, p year, i int) string {
	if i == 0 {
		return fmt.Sprintf("Fishing boats landed %d,000 tonnes at the fish quay, mostly cod and herring.", y.Landings)
	}
	switch i % 3 {
	case 0:
		return fmt.Sprintf("Landings at the fish quay %s to %d,000 tonnes.", change(y.Landings, p.Landings), y.Landings)
	case 1:
		if y.Landings < p.Landings {
			return fmt.Sprintf("The fleet brought in %d,000 tonnes of fish, another decline as stocks and quotas shrank.", y.Landings)
		}
		return fmt.Sprintf("The fleet brought in %d,000 tonnes of fish, a modest recovery as cod stocks rebuilt.", y.Landings)
	}
	dir := "up"
	if y.Landings < p.Landings {
		dir = "down"
	}
	return fmt.Sprintf("Fish landed at Port Calder totalled %d,000 tonnes, %s %d percent on the previous season.", y.Landings, dir, pct(y.Landings, p.Landings))
}

func cruise(y, p year, i int) string {
	switch {
	case y.Cruise == 0:
		return "No cruise ship called at Port Calder at all."
	case p.Cruise == 0 && i > 0:
		return fmt.Sprintf("Only %d cruise ships called, all late in the season.", y.Cruise)
	case i%2 == 0:
		return fmt.Sprintf("Cruise calls numbered %d.", y.Cruise)
	}
	return fmt.Sprintf("The cruise season brought %d ships to the passenger quay.", y.Cruise)
}

func finance(y, p year, i int) string {
	if i == 0 {
		return fmt.Sprintf("The Harbour Authority's revenue was %d million crowns.", y.Revenue)
	}
	if i%2 == 1 {
		return fmt.Sprintf("Revenue %s to %d million crowns.", change(y.Revenue, p.Revenue), y.Revenue)
	}
	return fmt.Sprintf("The Authority reported revenue of %d million crowns, against %d million the year before.", y.Revenue, p.Revenue)
}

// portChronicle is the long report (docs/contract.md#token-estimate estimate well above the default
// 7488-token map prompt budget), so a search over the sample index has to
// split it into parts.
func portChronicle() string {
	var b strings.Builder
	b.WriteString("This community report follows Port Calder, Veloria's only deep-water port, year by year through the decade from 2014 to 2024. It brings together the Harbour Authority's annual figures, the decisions of the government and the city council, and the experience of the people who work in and around the harbour. The port is where most of the decade's themes meet: trade with Dorsk and Haiyun, the decline and partial recovery of fishing, the energy transition, the drought, the pandemic and Storm Ilse.\n\n")
	for i, y := range years {
		p := y
		if i > 0 {
			p = years[i-1]
		}
		fmt.Fprintf(&b, "%d. %s %s\n\n", y.Year, events[i], quotes[i])
		b.WriteString(strings.Join([]string{
			cargo(y, p, i), tradeNotes[i], ships[i], ferries(y, p, i), fishing(y, p, i), cruise(y, p, i),
			finance(y, p, i), policy[i], energy[i], workforce[i], environment[i], community[i],
		}, " "))
		b.WriteString("\n\n" + more[i] + "\n\n")
	}
	for _, t := range themes {
		b.WriteString(t + "\n\n")
	}
	b.WriteString("Looking back over the decade, the chronicle shows three shifts. The port's economic weight moved from fish to containers and logistics, with Haiyun as the most important partner. Its energy moved from diesel to wind, through the ferries, shore power and the interconnector. And its exposure to climate became obvious: the drought, the heatwaves and Storm Ilse each disrupted the harbour in ways the plans of 2014 had not foreseen. The people of Port Calder adapted, but the costs fell unevenly, on small fishers, on yard workers and on tenants in the old town and the Lantern Quarter.")
	return b.String()
}
