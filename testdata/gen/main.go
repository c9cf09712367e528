//go:build ignore

// Command gen writes testdata/sample-index.json: a fictional corpus about the
// archipelago nation of Veloria over the decade 2014-2024, written for this
// project. Every text is original; names of places, firms and people are
// invented. The one very long community report (the Port Calder chronicle)
// is assembled from per-year data and varied sentence material so that it
// exceeds the default map budget and gets split (docs/contract.md#batching); everything else
// is hand-written here.
//
// Run from the repository root:
//
//	go run testdata/gen/main.go
//
// With --summaries N it writes instead a synthetic index of N leaf
// summaries under N/50 roots, two claims per leaf and one chunk per four
// claims, sized like a large real index (for N=10000 about 26 MB of JSON
// and 35 MB of map text); `make bench` plans one to measure the whole
// process. The same N always writes the same bytes.
//
//	go run testdata/gen/main.go --summaries 10000 --out /tmp/index-10k.json
package main

import (
	"flag"
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

func main() {
	n := flag.Int("summaries", 0, "write a synthetic index of this many leaf summaries instead of the sample")
	out := flag.String("out", "testdata/sample-index.json", "file to write")
	flag.Parse()
	f := indexfile.File{Namespace: "sample"}
	if *n > 0 {
		f = synthetic(*n)
	} else {
		f.Summaries = summaries()
		f.Claims = claims()
		f.Chunks = chunks()
	}
	if err := f.Records.Validate(); err != nil {
		log.Fatal(err)
	}
	if err := indexfile.Save(*out, f); err != nil {
		log.Fatal(err)
	}
}

// synthetic builds a large index from the sample's sentence material. Its
// texts vary from record to record (so no batch is a repeat of another)
// but need not read well: it measures, it is not searched.
func synthetic(leaves int) indexfile.File {
	f := indexfile.File{Namespace: "bench"}
	roots := max(1, leaves/50)
	pool := slices.Concat(events, workforce, environment, community, more, energy, themes, policy, tradeNotes)
	text := func(seed, size int) string {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			b.WriteString(pool[(seed*7+i*13)%len(pool)])
			b.WriteByte(' ')
		}
		return strings.TrimSpace(b.String())
	}
	for r := range roots {
		f.Summaries = append(f.Summaries, sum(fmt.Sprintf("root-%04d", r), 0, "", fmt.Sprintf("Theme %d", r), text(r, 600)))
	}
	chunks := max(1, leaves/2)
	for i := range chunks {
		f.Chunks = append(f.Chunks, ch(fmt.Sprintf("chunk-%05d", i), fmt.Sprintf("doc-%03d", i/50), text(i+3, 600)))
	}
	for l := range leaves {
		id := fmt.Sprintf("leaf-%05d", l)
		f.Summaries = append(f.Summaries, sum(id, 1, fmt.Sprintf("root-%04d", l%roots), fmt.Sprintf("Community %d", l), text(l+1, 450)))
		for k := range 2 {
			c := 2*l + k
			f.Claims = append(f.Claims, globalsearch.Claim{
				ID: fmt.Sprintf("claim-%05d", c), CommunityID: id, Subject: fmt.Sprintf("Entity %d", c%997),
				Object: fmt.Sprintf("Entity %d", (c*31)%997), Description: text(c+2, 150),
				SourceChunkIDs: []string{fmt.Sprintf("chunk-%05d", c%chunks)},
			})
		}
	}
	return f
}

func sum(id string, level int, parent, title, text string) globalsearch.Summary {
	return globalsearch.Summary{ID: id, Level: level, ParentCommunityID: parent, Title: title, Summary: text}
}

func summaries() []globalsearch.Summary {
	return []globalsearch.Summary{
		// Level 0: the three broad themes of the decade.
		sum("c0-economy", 0, "", "Veloria's economy: port, trade and enterprise",
			"Over the decade from 2014 to 2024 Veloria's economic development was organised around three linked engines: the port city of Port Calder, trade with the neighbouring Republic of Dorsk and the Chinese-speaking city-state of Haiyun, and a young technology sector clustered on Calder Quay. "+
				"Port Calder doubled its container throughput after the terminal expansion, and a minority stake taken by Haiyun Ocean Logistics tied the port more closely to East Asian shipping lines. "+
				"The 2016 Economic Partnership Agreement with Dorsk lowered tariffs on most goods, although a dispute over salted-fish duties in 2020 showed how fragile that relationship could be. "+
				"Start-ups in ocean sensing, remittance payments and water technology grew quickly but unevenly, and the collapse of one state-backed firm prompted tighter oversight of the Veloria Growth Fund. "+
				"Across the decade the recurring theme is diversification away from raw fish exports toward logistics, services and engineering, with the drought years of 2019-2021 and the pandemic slowdown testing that strategy."),
		sum("c0-environment", 0, "", "Energy, climate and natural resources",
			"Veloria's environmental story over the decade is one of transition under pressure. "+
				"The country moved from imported diesel toward offshore wind, a tidal pilot and island microgrids, reaching roughly 70 percent renewable electricity by 2024, while a subsea interconnector to Dorsk made the grid more resilient. "+
				"At the same time its fisheries faced declining cod and herring stocks, a 2017 quota reform that concentrated licences, and a boundary dispute at the Grey Shoals; aquaculture of kelp and mussels grew as a partial substitute. "+
				"The 2019-2021 drought was the defining shock: water rationing, emergency desalination, crop losses on Ostrel and the worst wildfire season on record. "+
				"Storm Ilse in 2022 then pushed coastal adaptation up the agenda. The common thread is that climate stress accelerated investments Veloria had planned but postponed."),
		sum("c0-society", 0, "", "People, learning and communities",
			"Veloria's social development over the decade centred on Port Calder, which drew people from the outer islands and from abroad. "+
				"Aldren University grew into a regional centre for marine science and engineering, partnering with the Minase Institute of Ocean Engineering and supplying graduates to the wind and sensor industries, but student housing could not keep up. "+
				"The Lantern Quarter, home to a Chinese-speaking diaspora (灯笼街区), became both a commercial bridge to Haiyun and a focus of debates about housing and belonging. "+
				"Migration from the outer islands, a housing shortage in the capital region and the 2018 Climate Act shaped politics, while festivals and a revived interest in the Velorian language gave the decade a cultural identity. "+
				"The main social themes are urbanisation, education-led development, diaspora ties, and the question of who bears the cost of the energy and climate transition."),

		// Level 1: economy.
		sum("c1-port", 1, "c0-economy", "Port Calder",
			"Port Calder is Veloria's only deep-water port and the hub of its development during the decade. "+
				"The Harbour Authority expanded the container terminal between 2015 and 2018, electrified the inter-island ferries from 2019, and managed a cruise trade that grew until the pandemic and then returned under a cap. "+
				"Investment from Haiyun Ocean Logistics financed the second berth, while automation triggered the 2018 dockworkers' strike. "+
				"A year-by-year chronicle records cargo, passenger and fishing figures alongside the political decisions that shaped the port."),
		sum("c1-trade", 1, "c0-economy", "Trade with Dorsk and Haiyun",
			"Veloria's external trade in the decade rested on two partners. "+
				"The Republic of Dorsk, its neighbour across the Narrows, took most agricultural exports and supplied machinery and, later, electricity; the 2016 Economic Partnership Agreement cut most tariffs. "+
				"The city-state of Haiyun (海云) became the largest buyer of Velorian seafood and a major investor in the port, and its merchants used the Lantern Quarter diaspora as intermediaries. "+
				"A 2020 tariff dispute with Dorsk over salted fish was settled by arbitration in 2021, reinforcing the lesson that Veloria needed more than one market."),
		sum("c1-startups", 1, "c0-economy", "Technology start-ups on Calder Quay",
			"A small technology sector emerged in Veloria during the decade, mostly in converted warehouses on Calder Quay. "+
				"The Calder Quay incubator, opened in 2015 with university and port support, hosted about sixty firms by 2022. "+
				"The strongest clusters were ocean sensors, built on Aldren University research, and financial technology for remittances between the Lantern Quarter and Haiyun. "+
				"The Veloria Growth Fund invested public money in start-ups, but the 2022 collapse of the desalination firm Skylark Water led to an audit and new rules."),
		// Level 2 and 3: port.
		sum("c2-port-chronicle", 2, "c1-port", "Port Calder chronicle, 2014-2024", portChronicle()),
		sum("c2-container-terminal", 2, "c1-port", "Container terminal expansion",
			"The container terminal at Port Calder was expanded in two phases between 2015 and 2018, adding a second deep-water berth, two ship-to-shore cranes and an automated stacking yard. "+
				"The project was financed by the Harbour Authority, a loan from the Velorian Development Bank and a 24 percent stake sold to Haiyun Ocean Logistics. "+
				"Throughput rose from about 180,000 TEU in 2014 to over 400,000 TEU by 2023. "+
				"The automation of the stacking yard was the main cause of labour conflict at the port."),
		sum("c3-terminal-haiyun-investment", 3, "c2-container-terminal", "Haiyun Ocean Logistics stake in the terminal",
			"In 2016 the Harbour Authority sold a 24 percent stake in the terminal operating company to Haiyun Ocean Logistics (海云远洋物流) for the equivalent of 95 million Velorian crowns. "+
				"The deal brought two Haiyun shipping lines to Port Calder on a weekly rotation and financed the second berth. "+
				"Critics in parliament questioned foreign influence over strategic infrastructure; the government answered that a golden share kept control of berth allocation in Velorian hands. "+
				"By 2021 Haiyun-linked cargo made up roughly a third of the terminal's volume."),
		sum("c3-terminal-labour", 3, "c2-container-terminal", "Dockworkers and automation",
			"The Calder Dockworkers' Union struck for eleven days in March 2018 against the automated stacking yard, which removed around 140 manual jobs. "+
				"The settlement guaranteed redeployment or retraining for every affected worker, funded a training centre with Aldren University's engineering school, and introduced a joint safety committee. "+
				"Relations stayed tense, but no further strikes followed, and by 2023 most former yard workers operated or maintained automated equipment."),
		sum("c2-ferries", 2, "c1-port", "Electric inter-island ferries",
			"Veloria's inter-island ferries connect Port Calder with Ostrel, the Kessa Isles and Tull. "+
				"From 2019 the Harbour Authority replaced diesel vessels with battery-electric ferries charged from shore power at Port Calder and Ostrel, the first of them built at the Marenna shipyard. "+
				"Five of the seven routes were electric by 2024, cutting ferry fuel costs by more than half. "+
				"Islanders welcomed quieter and more frequent crossings, though the Tull route still depends on a hybrid vessel because its harbour has no grid connection strong enough for fast charging."),
		sum("c2-cruise-tourism", 2, "c1-port", "Cruise tourism",
			"Cruise calls at Port Calder grew from 38 in 2014 to 121 in 2019, bringing income to the old town but also congestion and complaints about air pollution from ships at berth. "+
				"The pandemic stopped cruise traffic entirely in 2020 and most of 2021. "+
				"When ships returned, the city council capped calls at 90 a year and required shore power for vessels staying overnight from 2024. "+
				"Tourism businesses complained at first, but visitor spending per call rose as the cap spread arrivals more evenly."),
		// Trade.
		sum("c2-trade-dorsk", 2, "c1-trade", "Economic Partnership Agreement with Dorsk",
			"The 2016 Economic Partnership Agreement between Veloria and the Republic of Dorsk removed tariffs on about 90 percent of goods, opened public procurement on both sides and created a joint committee for fisheries questions. "+
				"Velorian exports of vegetables, wool and processed fish to Dorsk rose by about 40 percent in the first three years. "+
				"Dorsk supplied most of Veloria's machinery and, after 2021, electricity over the Northern Link interconnector. "+
				"The agreement's dispute-settlement chapter was tested for the first time in the 2020 salted-fish case."),
		sum("c2-trade-haiyun", 2, "c1-trade", "Seafood and investment ties with Haiyun (海云)",
			"Haiyun, a Chinese-speaking city-state, became Veloria's largest seafood customer during the decade, buying frozen herring, mussels and dried kelp. "+
				"海云市是维洛里亚最大的海产品买家，也是卡尔德港的重要投资者。 "+
				"Trade was helped by a 2018 sanitary agreement that let Velorian processors certify exports directly, and by Lantern Quarter trading houses that handled contracts in Mandarin. "+
				"两地之间的贸易额在十年间增长了三倍。 "+
				"Velorian officials worried about dependence on a single buyer, especially when Haiyun briefly suspended mussel imports in 2021 over a labelling error."),
		sum("c2-tariff-dispute-2020", 2, "c1-trade", "The 2020 salted-fish tariff dispute",
			"In February 2020 Dorsk imposed a safeguard duty of 18 percent on Velorian salted fish, arguing that a surge of imports harmed its own processors. "+
				"Veloria took the case to the arbitration panel under the 2016 agreement. "+
				"The panel ruled in June 2021 that Dorsk had not shown serious injury, and the duty was lifted, but Velorian processors had lost a season of sales and several small firms on the Kessa Isles closed. "+
				"The dispute pushed exporters toward Haiyun and toward higher-value products."),
		// Start-ups.
		sum("c2-calder-quay-incubator", 2, "c1-startups", "Calder Quay incubator",
			"The Calder Quay incubator opened in 2015 in a former fish warehouse, funded by the Harbour Authority, Aldren University and the city council. "+
				"It offered cheap desks, mentoring and access to university laboratories. "+
				"By 2022 about sixty firms were resident and twelve had raised outside capital; its 2022 review found that firms linked to university research survived longer than others. "+
				"Rising rents on the quay after 2021 pushed several teams to Ostrel."),
		sum("c2-fintech-remittance", 2, "c1-startups", "Remittance technology: Tidepay",
			"Tidepay, founded in 2017 by two Aldren graduates from the Lantern Quarter, built a mobile app for sending money between Veloria and Haiyun at a fraction of bank fees. "+
				"The app offered a Chinese interface (潮付) and became popular with seasonal workers and small traders. "+
				"By 2023 it handled about a fifth of remittances between the two places. "+
				"The central bank's 2020 payment licensing rules forced Tidepay to strengthen its anti-money-laundering checks, which slowed growth for a year."),
		sum("c2-ocean-sensors", 2, "c1-startups", "Ocean sensor firms",
			"Ocean sensing became Veloria's most successful technology niche. "+
				"Brinewatch, spun out of Aldren University's marine laboratory in 2016, makes low-cost buoys that measure temperature, salinity and oxygen, and sells them to fish farms and wind-farm operators. "+
				"Two smaller firms build acoustic fish counters and cable-inspection drones. "+
				"The cluster benefited from the offshore wind build-out and from the fisheries agency's need for better stock data."),
		sum("c2-venture-fund", 2, "c1-startups", "Veloria Growth Fund and the Skylark collapse",
			"The Veloria Growth Fund was created in 2017 to co-invest public money alongside private investors in Velorian start-ups. "+
				"Its largest bet was Skylark Water, which promised modular solar desalination units during the drought, received contracts without open tender in 2020, and collapsed in 2022 when its units failed field tests. "+
				"A 2023 audit found weak due diligence and conflicts of interest on the fund's board. "+
				"The government replaced the board, published all holdings and required independent technical review for investments above five million crowns."),
		// Level 1: environment.
		sum("c1-energy", 1, "c0-environment", "Energy transition",
			"Veloria's energy transition over the decade replaced most imported diesel with domestic renewables. "+
				"The Sorrel Bank offshore wind farm, a tidal pilot in the Kessa Strait, battery microgrids on the outer islands and the Northern Link interconnector to Dorsk together raised the renewable share of electricity from about 15 percent in 2014 to about 70 percent in 2024. "+
				"The build-out created a supply chain at Ostrel and jobs for Aldren graduates, but household electricity prices rose during construction and fell only after 2022."),
		sum("c2-offshore-wind", 2, "c1-energy", "Offshore wind",
			"Offshore wind is the backbone of Veloria's new power system. "+
				"The Sorrel Bank wind farm was built in two phases and supplies about half of national electricity demand. "+
				"A blade and tower supply chain grew around the Ostrel yards, although most turbines were still imported."),
		sum("c3-sorrel-bank", 3, "c2-offshore-wind", "Sorrel Bank wind farm",
			"Sorrel Bank, 30 kilometres north-west of Marenna, hosts Veloria's first offshore wind farm: 42 turbines commissioned in 2020 and another 30 in 2023, for a total of about 600 megawatts. "+
				"It is owned by a consortium of the state utility Veloria Energi and two pension funds. "+
				"Fishers objected to exclusion zones during construction, and the consortium agreed to allow static-gear fishing between turbines. "+
				"Monitoring by Brinewatch buoys showed no measurable harm to the herring spawning grounds."),
		sum("c3-wind-supply-chain", 3, "c2-offshore-wind", "Wind supply chain at Ostrel",
			"A blade finishing plant and a tower welding yard opened on Ostrel in 2019, employing about 450 people at their peak. "+
				"They were attracted by the port at Ostrel Sound and by a training agreement with Aldren University. "+
				"The yards struggled when the second Sorrel Bank phase was delayed by a year, and one of them laid off a third of its staff in 2022 before new orders arrived from Dorsk."),
		sum("c2-tidal-pilot", 2, "c1-energy", "Kessa Strait tidal pilot",
			"A tidal-stream pilot of four turbines was installed in the Kessa Strait in 2018 in partnership with the Minase Institute of Ocean Engineering (水無瀬海洋工学研究所) from Asagiri. "+
				"潮流発電の実証試験は2018年に始まり、四基のタービンが設置された。 "+
				"The turbines produced reliably but at a cost per unit three times that of wind, and the government decided in 2023 to extend the pilot as a research site rather than scale it up."),
		sum("c2-interconnector", 2, "c1-energy", "Northern Link interconnector",
			"The Northern Link, a 140-kilometre subsea cable between Marenna and Dorsk, entered service in 2021. "+
				"It lets Veloria export surplus wind power and import electricity during calm spells, and it replaced the old diesel reserve plant at Port Calder. "+
				"Cable faults in the winter of 2022 exposed the risk of depending on a single link, and a second cable was under study in 2024."),
		sum("c2-island-microgrids", 2, "c1-energy", "Outer-island microgrids",
			"The outer islands of Tull and the Kessa Isles ran on diesel generators at the start of the decade. "+
				"Between 2017 and 2022 each received a microgrid combining small wind turbines, solar panels and batteries, cutting diesel use by about 80 percent. "+
				"Residents' cooperatives own part of the assets, which kept local support high, though battery replacements will be costly later in the 2020s."),
		sum("c1-fisheries", 1, "c0-environment", "Fisheries and aquaculture",
			"Fishing remains culturally central to Veloria but economically shrinking. "+
				"Cod and herring stocks declined in the early decade, leading to the 2017 quota reform, a boundary dispute with Dorsk over the Grey Shoals, and a shift toward kelp and mussel farming. "+
				"Exports increasingly went to Haiyun through a new cold chain, and processing moved from salting toward frozen and dried products."),
		sum("c2-quota-reform", 2, "c1-fisheries", "2017 quota reform",
			"The 2017 Fisheries Act replaced annual licences with transferable ten-year quotas based on catch history and cut the total allowable cod catch by 30 percent over three years. "+
				"Stocks began to recover by 2021, but quota ownership concentrated: by 2023 the five largest companies held over half of the cod quota. "+
				"Small boat owners on the Kessa Isles argued that the reform hollowed out their communities, and a community quota reserve was added in 2022."),
		sum("c2-aquaculture", 2, "c1-fisheries", "Kelp and mussel aquaculture",
			"Aquaculture grew from a handful of farms in 2014 to more than 120 licensed sites by 2022, mostly kelp and blue mussels in the sheltered sounds of Ostrel and the Kessa Isles. "+
				"Many farms are run by former fishers, helped by a retraining grant. "+
				"Dried kelp found a market in Haiyun, and mussels are sold fresh in Dorsk. "+
				"Marine heatwaves during the drought years caused mussel die-offs in 2020."),
		sum("c2-grey-shoals-dispute", 2, "c1-fisheries", "Grey Shoals boundary dispute",
			"The Grey Shoals, rich herring grounds between Veloria and Dorsk, were claimed by both countries. "+
				"Boats from both sides were detained in 2015 and 2019, and fisheries talks under the 2016 agreement stalled. "+
				"In 2023 the two governments agreed on a joint management zone with shared quotas and joint patrols, leaving the sovereignty question open."),
		sum("c2-cold-chain-exports", 2, "c1-fisheries", "Cold chain and seafood exports to Haiyun",
			"A cold-storage hub at Port Calder opened in 2018, allowing frozen herring and mussels to be shipped to Haiyun in reefer containers rather than salted. "+
				"冷链中心使维洛里亚的冷冻鲱鱼能够直接运往海云。 "+
				"Export values per tonne rose by about a quarter as processors moved up the value chain. "+
				"Power cuts during the 2022 cable faults spoiled one shipment and led to backup generators being installed."),
		sum("c1-drought", 1, "c0-environment", "The 2019-2021 drought",
			"Three dry years from 2019 to 2021 were the most serious environmental shock of Veloria's decade. "+
				"Reservoirs on Marenna fell to a fifth of capacity, Port Calder introduced water rationing, farms on Ostrel lost much of their harvest, and wildfires burned across the uplands in 2021. "+
				"The government responded with emergency desalination, a water-pricing reform and a fire-service overhaul, and the drought reshaped priorities in energy, agriculture and public spending."),
		sum("c2-water-rationing", 2, "c1-drought", "Water rationing in Port Calder",
			"Port Calder rationed water from August 2020 to April 2021, with supply cut overnight and a ban on garden watering and car washing. "+
				"Households cut consumption by about a quarter, but leaks in the old network still lost a third of treated water. "+
				"The water board introduced tiered pricing in 2021 and began a ten-year pipe replacement programme."),
		sum("c2-desalination", 2, "c1-drought", "Desalination",
			"To end rationing the government built an emergency reverse-osmosis desalination plant at Port Calder, powered by wind electricity bought under a long-term contract, which opened in 2021. "+
				"It supplies about a third of the city's water. "+
				"Smaller modular units bought from Skylark Water for the outer islands failed, and were replaced with units from an established Dorsk supplier."),
		sum("c2-ostrel-agriculture", 2, "c1-drought", "Drought and agriculture on Ostrel",
			"Ostrel is Veloria's main farming island, growing potatoes, vegetables and fodder. "+
				"During the drought potato yields fell by 40 percent in 2020, and many sheep farmers sold stock they could not feed. "+
				"A drip-irrigation grant and a farmers' water cooperative using treated wastewater helped recovery, and several farms switched to drought-tolerant crops."),
		sum("c2-wildfires", 2, "c1-drought", "Upland wildfires of 2021",
			"In July 2021 wildfires burned about 9,000 hectares of heath and forest in the Marenna uplands, forcing the evacuation of three villages. "+
				"The fire service had few upland vehicles and relied on volunteer crews. "+
				"A review led to a new wildfire unit, firebreaks and grazing plans to reduce fuel, and a helicopter contract shared with Dorsk."),
		sum("c1-coastal-climate", 1, "c0-environment", "Storm Ilse and coastal adaptation",
			"Storm Ilse struck Veloria in November 2022 with record surge levels, flooding parts of Port Calder's old harbour, damaging the Tull ferry pier and cutting power on the Kessa Isles for four days. "+
				"The damage was estimated at 310 million crowns. "+
				"In response the government published a coastal adaptation plan with sea walls for Port Calder, managed retreat for two low-lying villages and stricter building rules. "+
				"The storm, coming after the drought, made climate adaptation a cross-party priority."),
		// Level 1: society.
		sum("c1-university", 1, "c0-society", "Aldren University",
			"Aldren University in Port Calder expanded during the decade from a teaching college into a research university known for marine science and engineering. "+
				"Its student numbers rose from about 6,000 to 11,000, partnerships with the Minase Institute and universities in Dorsk brought research funding, and graduates staffed the wind, sensor and aquaculture industries. "+
				"Growth outpaced student housing and strained the city."),
		sum("c2-marine-science", 2, "c1-university", "Marine science at Aldren",
			"The Aldren marine laboratory monitors Veloria's waters and advises the fisheries agency on stock assessments. "+
				"Its long-term herring survey informed the 2017 quota reform, and its sensor work gave rise to Brinewatch. "+
				"During the drought years the laboratory documented marine heatwaves and linked them to mussel die-offs."),
		sum("c2-engineering-school", 2, "c1-university", "School of Engineering",
			"Aldren's School of Engineering opened programmes in offshore renewables in 2016 and in port automation in 2018, the latter as part of the settlement of the dockworkers' strike. "+
				"It runs apprenticeships with the Ostrel wind yards and the Marenna shipyard. "+
				"Employers praise its graduates but say it cannot train enough electricians."),
		sum("c2-student-housing", 2, "c1-university", "Student housing shortage",
			"Student numbers grew faster than housing: a 2022 student union survey found a third of students paying more than half their income on rent, and some commuting by ferry from Ostrel. "+
				"The university began building 1,200 beds on a former rail yard in 2023. "+
				"Landlords in the Lantern Quarter converted family flats into student lets, adding to tensions about housing there."),
		sum("c2-research-partnerships", 2, "c1-university", "International research partnerships",
			"Aldren University signed a memorandum of understanding with the Minase Institute of Ocean Engineering in Asagiri in 2017, covering tidal energy, ocean sensors and student exchange. "+
				"水無瀬研究所とアルドレン大学は2017年に覚書を締結し、学生交流と共同研究を始めた。 "+
				"It also joined a Dorsk-Veloria doctoral network on coastal resilience after Storm Ilse, and hosts visiting researchers from Haiyun's ocean university."),
		sum("c1-communities", 1, "c0-society", "Communities and migration",
			"Veloria's population became more urban during the decade. "+
				"The outer islands lost young people to Port Calder, the capital region faced a housing shortage, and the Lantern Quarter's Chinese-speaking community grew and became more visible. "+
				"These shifts shaped debates on housing policy, ferry services and what it means to be Velorian."),
		sum("c2-lantern-quarter", 2, "c1-communities", "The Lantern Quarter (灯笼街区)",
			"The Lantern Quarter is Port Calder's historic Chinese-speaking neighbourhood, founded by traders from Haiyun in the nineteenth century. "+
				"灯笼街区是卡尔德港历史悠久的华人社区，许多家庭经营贸易公司和餐馆。 "+
				"During the decade its trading houses brokered much of the seafood trade with Haiyun, Tidepay was founded there, and the Lantern Festival became a city-wide event. "+
				"Rising rents and student lets pushed some long-standing families out, and community groups campaigned for protected tenancies."),
		sum("c2-outer-island-migration", 2, "c1-communities", "Migration from the outer islands",
			"The 2021 census showed the population of Tull falling by 22 percent and the Kessa Isles by 15 percent over ten years, while Port Calder grew by 18 percent. "+
				"Young people left for university and work; those who stayed were older. "+
				"Electric ferries, microgrid jobs and remote work during the pandemic slowed the decline after 2020, and a few families moved back."),
		sum("c2-housing-crisis", 2, "c1-communities", "Housing shortage in Port Calder",
			"House prices in Port Calder rose by about 70 percent between 2014 and 2023, driven by migration, student demand and short-term tourist lets. "+
				"The 2023 Housing Commission recommended building 8,000 homes, limiting short-term lets in the old town, and protecting tenants in the Lantern Quarter. "+
				"The government adopted most recommendations, though construction was slowed by high material costs."),
		sum("c1-governance", 1, "c0-society", "Policy and governance",
			"Two pieces of national policy framed Veloria's decade: the 2018 Climate Act, which set a legally binding path to net-zero emissions by 2040, and the fiscal choices that paid for the energy transition, drought relief and storm recovery. "+
				"Both were contested between coalition partners but survived changes of government."),
		sum("c2-climate-act", 2, "c1-governance", "The 2018 Climate Act",
			"The 2018 Climate Act committed Veloria to net-zero greenhouse gas emissions by 2040, with five-year carbon budgets and an independent climate council. "+
				"The council's reports pushed the government to accelerate the ferry electrification and the interconnector. "+
				"After the drought and Storm Ilse the act was amended in 2023 to add adaptation duties for municipalities."),
		sum("c2-fiscal-policy", 2, "c1-governance", "Public finances and the 2022 budget",
			"Public debt rose from 38 to 55 percent of GDP over the decade as Veloria paid for drought relief, pandemic support and storm repairs. "+
				"The 2022 budget introduced a carbon levy on fuel imports, earmarked half its revenue for household energy rebates, and created a climate resilience fund. "+
				"Opposition parties argued the levy hit outer-island households hardest, and a rural rebate was added."),
		sum("c1-culture", 1, "c0-society", "Culture, language and identity",
			"The decade saw a revival of Velorian cultural life. "+
				"The Velorian language, spoken mainly on the outer islands, gained a television channel and a school curriculum in 2019. "+
				"Port Calder's harbour festival and the Lantern Festival drew growing crowds, and a new maritime museum opened in a restored warehouse on Calder Quay in 2022, telling the story of fishing, migration and trade."),
	}
}

var claimSeq int

// cl builds a claim with the next sequential id.
func cl(community, subject, object, desc string, chunkIDs ...string) globalsearch.Claim {
	claimSeq++
	if chunkIDs == nil {
		chunkIDs = []string{}
	}
	return globalsearch.Claim{ID: fmt.Sprintf("claim-%03d", claimSeq), CommunityID: community, Subject: subject, Object: object, Description: desc, SourceChunkIDs: chunkIDs}
}

func claims() []globalsearch.Claim {
	return []globalsearch.Claim{
		// Port chronicle.
		cl("c2-port-chronicle", "Port Calder", "container throughput", "Container throughput at Port Calder more than doubled between 2014 and 2023, passing 400,000 TEU.", "ch-01", "ch-02"),
		cl("c2-port-chronicle", "Harbour Authority", "pandemic", "The Harbour Authority kept the port open through the 2020 lockdown while passenger traffic fell by two thirds.", "ch-02"),
		cl("c2-port-chronicle", "Storm Ilse", "Port Calder", "Storm Ilse flooded the old harbour in November 2022 and damaged the fish market.", "ch-26"),
		// Terminal.
		cl("c3-terminal-haiyun-investment", "Haiyun Ocean Logistics", "terminal operating company", "Haiyun Ocean Logistics bought a 24 percent stake in the Port Calder terminal in 2016.", "ch-01", "ch-07"),
		cl("c3-terminal-haiyun-investment", "Velorian government", "golden share", "The government kept a golden share that controls berth allocation.", "ch-01"),
		cl("c3-terminal-haiyun-investment", "海云远洋物流", "卡尔德港", "海云远洋物流每周安排两条航线停靠卡尔德港。", "ch-07"),
		cl("c3-terminal-labour", "Calder Dockworkers' Union", "Harbour Authority", "The union struck for eleven days in March 2018 over the automated stacking yard.", "ch-03"),
		cl("c3-terminal-labour", "strike settlement", "Aldren University", "The settlement funded a port automation training centre run with Aldren's engineering school.", "ch-03", "ch-28"),
		cl("c3-terminal-labour", "automated stacking yard", "", "The automated yard removed about 140 manual jobs, all of whose holders were offered redeployment or retraining.", "ch-03"),
		// Ferries.
		cl("c2-ferries", "Harbour Authority", "battery-electric ferries", "The first battery-electric ferry entered service on the Ostrel route in 2019.", "ch-04"),
		cl("c2-ferries", "electric ferries", "fuel costs", "Electric ferries cut fuel costs on converted routes by more than half.", "ch-04"),
		cl("c2-ferries", "Tull route", "hybrid vessel", "The Tull route uses a hybrid vessel because the harbour lacks grid capacity for fast charging.", "ch-04", "ch-17"),
		// Cruise.
		cl("c2-cruise-tourism", "cruise calls", "Port Calder", "Cruise calls rose from 38 in 2014 to 121 in 2019.", "ch-05"),
		cl("c2-cruise-tourism", "city council", "cruise cap", "The council capped cruise calls at 90 per year after the pandemic.", "ch-05"),
		cl("c2-cruise-tourism", "overnight cruise ships", "shore power", "Ships staying overnight must connect to shore power from 2024.", "ch-05", "ch-41"),
		// Trade with Dorsk.
		cl("c2-trade-dorsk", "Economic Partnership Agreement", "Dorsk", "The 2016 agreement removed tariffs on about 90 percent of goods traded with Dorsk.", "ch-06"),
		cl("c2-trade-dorsk", "Velorian exports", "Dorsk", "Exports of vegetables, wool and processed fish to Dorsk rose about 40 percent in three years.", "ch-06"),
		cl("c2-trade-dorsk", "Dorsk", "Veloria", "Dorsk supplies most of Veloria's machinery and, since 2021, electricity via the Northern Link.", "ch-06", "ch-16"),
		// Haiyun.
		cl("c2-trade-haiyun", "Haiyun", "Velorian seafood", "Haiyun became the largest buyer of Velorian seafood, mainly frozen herring, mussels and dried kelp.", "ch-07", "ch-21"),
		cl("c2-trade-haiyun", "海云", "维洛里亚", "2018年卫生协议允许维洛里亚加工商直接认证出口产品。", "ch-07"),
		cl("c2-trade-haiyun", "Haiyun", "mussel imports", "Haiyun suspended mussel imports for six weeks in 2021 over a labelling error.", "ch-21"),
		// Tariff dispute.
		cl("c2-tariff-dispute-2020", "Dorsk", "salted fish", "Dorsk imposed an 18 percent safeguard duty on Velorian salted fish in February 2020.", "ch-08"),
		cl("c2-tariff-dispute-2020", "arbitration panel", "safeguard duty", "The panel ruled in June 2021 that Dorsk had not shown serious injury.", "ch-08"),
		cl("c2-tariff-dispute-2020", "Kessa Isles processors", "", "Several small salted-fish processors on the Kessa Isles closed during the dispute.", "ch-08", "ch-32"),
		// Incubator.
		cl("c2-calder-quay-incubator", "Calder Quay incubator", "", "The incubator opened in 2015 in a former fish warehouse.", "ch-09"),
		cl("c2-calder-quay-incubator", "2022 incubator review", "university spin-outs", "Firms linked to university research survived longer than other incubator firms.", "ch-09", "ch-27"),
		cl("c2-calder-quay-incubator", "Calder Quay rents", "start-ups", "Rising rents after 2021 pushed several start-ups to Ostrel.", "ch-09"),
		// Tidepay.
		cl("c2-fintech-remittance", "Tidepay", "Lantern Quarter", "Tidepay was founded in 2017 by two Aldren graduates from the Lantern Quarter.", "ch-10", "ch-31"),
		cl("c2-fintech-remittance", "Tidepay", "remittances", "By 2023 Tidepay handled about a fifth of remittances between Veloria and Haiyun.", "ch-10"),
		cl("c2-fintech-remittance", "central bank", "Tidepay", "The 2020 payment licensing rules required stronger anti-money-laundering checks.", "ch-10"),
		// Sensors.
		cl("c2-ocean-sensors", "Brinewatch", "Aldren marine laboratory", "Brinewatch was spun out of the Aldren marine laboratory in 2016.", "ch-11", "ch-27"),
		cl("c2-ocean-sensors", "Brinewatch buoys", "fish farms", "Brinewatch buoys measure temperature, salinity and oxygen for fish farms and wind-farm operators.", "ch-11"),
		cl("c2-ocean-sensors", "ocean sensor cluster", "offshore wind", "Demand from the Sorrel Bank build-out helped the sensor firms grow.", "ch-11", "ch-13"),
		// Venture fund.
		cl("c2-venture-fund", "Veloria Growth Fund", "Skylark Water", "The fund's largest investment, Skylark Water, collapsed in 2022 after its units failed field tests.", "ch-12"),
		cl("c2-venture-fund", "2023 audit", "Veloria Growth Fund", "The audit found weak due diligence and board conflicts of interest.", "ch-12"),
		cl("c2-venture-fund", "Skylark Water", "drought contracts", "Skylark received desalination contracts without open tender in 2020.", "ch-12", "ch-23"),
		// Sorrel Bank.
		cl("c3-sorrel-bank", "Sorrel Bank wind farm", "", "42 turbines were commissioned in 2020 and 30 more in 2023, about 600 MW in total.", "ch-13"),
		cl("c3-sorrel-bank", "wind consortium", "fishers", "Static-gear fishing is allowed between the turbines after objections from fishers.", "ch-13", "ch-20"),
		cl("c3-sorrel-bank", "Brinewatch monitoring", "herring spawning grounds", "Monitoring found no measurable harm to herring spawning grounds.", "ch-13", "ch-11"),
		// Supply chain.
		cl("c3-wind-supply-chain", "Ostrel wind yards", "", "The blade plant and tower yard on Ostrel employed about 450 people at their peak.", "ch-14"),
		cl("c3-wind-supply-chain", "Ostrel wind yards", "Aldren University", "The yards run apprenticeships and a training agreement with Aldren University.", "ch-14", "ch-28"),
		cl("c3-wind-supply-chain", "tower yard", "layoffs", "One yard laid off a third of its staff in 2022 when the second Sorrel Bank phase was delayed.", "ch-14"),
		// Tidal.
		cl("c2-tidal-pilot", "Kessa Strait tidal pilot", "Minase Institute", "Four tidal turbines were installed in 2018 with the Minase Institute of Ocean Engineering.", "ch-15", "ch-30"),
		cl("c2-tidal-pilot", "潮流発電", "コスト", "潮流発電のコストは洋上風力の約三倍であった。", "ch-15"),
		cl("c2-tidal-pilot", "Velorian government", "tidal pilot", "In 2023 the government kept the pilot as a research site rather than scaling it up.", "ch-15"),
		// Interconnector.
		cl("c2-interconnector", "Northern Link", "Dorsk", "The 140 km Northern Link cable to Dorsk entered service in 2021.", "ch-16"),
		cl("c2-interconnector", "Northern Link", "diesel reserve plant", "The interconnector allowed the diesel reserve plant at Port Calder to close.", "ch-16"),
		cl("c2-interconnector", "cable faults", "Veloria", "Cable faults in winter 2022 exposed the risk of a single link.", "ch-16", "ch-21"),
		// Microgrids.
		cl("c2-island-microgrids", "outer-island microgrids", "diesel", "Microgrids on Tull and the Kessa Isles cut diesel use by about 80 percent.", "ch-17"),
		cl("c2-island-microgrids", "residents' cooperatives", "microgrids", "Residents' cooperatives own part of the microgrid assets.", "ch-17"),
		cl("c2-island-microgrids", "microgrid batteries", "", "Battery replacements will be a large cost later in the 2020s.", "ch-17", "ch-90"),
		// Quota reform.
		cl("c2-quota-reform", "2017 Fisheries Act", "cod quota", "The act cut the total allowable cod catch by 30 percent over three years.", "ch-18"),
		cl("c2-quota-reform", "quota ownership", "", "By 2023 the five largest companies held over half of the cod quota.", "ch-18"),
		cl("c2-quota-reform", "community quota reserve", "Kessa Isles", "A community quota reserve for small boats was added in 2022.", "ch-18", "ch-32"),
		// Aquaculture.
		cl("c2-aquaculture", "aquaculture", "", "Licensed aquaculture sites grew to more than 120 by 2022.", "ch-19"),
		cl("c2-aquaculture", "former fishers", "retraining grant", "Many kelp and mussel farms are run by former fishers using a retraining grant.", "ch-19"),
		cl("c2-aquaculture", "marine heatwaves", "mussel farms", "Marine heatwaves caused mussel die-offs in 2020.", "ch-19", "ch-27"),
		// Grey Shoals.
		cl("c2-grey-shoals-dispute", "Grey Shoals", "Dorsk", "Fishing boats from both countries were detained at the Grey Shoals in 2015 and 2019.", "ch-20"),
		cl("c2-grey-shoals-dispute", "joint management zone", "Grey Shoals", "A joint management zone with shared quotas and patrols was agreed in 2023.", "ch-20"),
		cl("c2-grey-shoals-dispute", "sovereignty", "", "The 2023 arrangement left the sovereignty question open.", "ch-20"),
		// Cold chain.
		cl("c2-cold-chain-exports", "cold-storage hub", "Port Calder", "A cold-storage hub opened at Port Calder in 2018.", "ch-21"),
		cl("c2-cold-chain-exports", "冷冻鲱鱼", "海云", "冷链使每吨出口价值提高了约四分之一。", "ch-21"),
		cl("c2-cold-chain-exports", "2022 power cuts", "seafood shipment", "A shipment spoiled during the 2022 power cuts, leading to backup generators.", "ch-21", "ch-16"),
		// Water rationing.
		cl("c2-water-rationing", "Port Calder water board", "rationing", "Water was rationed from August 2020 to April 2021.", "ch-22"),
		cl("c2-water-rationing", "households", "water use", "Households cut consumption by about a quarter during rationing.", "ch-22"),
		cl("c2-water-rationing", "water network", "leaks", "Leaks lost about a third of treated water, prompting a ten-year pipe replacement programme.", "ch-22"),
		// Desalination.
		cl("c2-desalination", "Port Calder desalination plant", "", "The reverse-osmosis plant opened in 2021 and supplies about a third of the city's water.", "ch-23"),
		cl("c2-desalination", "desalination plant", "wind electricity", "The plant runs on wind power bought under a long-term contract.", "ch-23", "ch-13"),
		cl("c2-desalination", "Skylark units", "outer islands", "Skylark's modular units failed and were replaced by units from a Dorsk supplier.", "ch-23", "ch-12"),
		// Ostrel agriculture.
		cl("c2-ostrel-agriculture", "Ostrel potato harvest", "drought", "Potato yields on Ostrel fell by 40 percent in 2020.", "ch-24"),
		cl("c2-ostrel-agriculture", "sheep farmers", "", "Many sheep farmers sold stock they could not feed during the drought.", "ch-24"),
		cl("c2-ostrel-agriculture", "farmers' water cooperative", "treated wastewater", "A cooperative reuses treated wastewater for irrigation on Ostrel.", "ch-24"),
		// Wildfires.
		cl("c2-wildfires", "2021 wildfires", "Marenna uplands", "About 9,000 hectares burned and three villages were evacuated in July 2021.", "ch-25"),
		cl("c2-wildfires", "fire service review", "wildfire unit", "The review created a dedicated wildfire unit and firebreak programme.", "ch-25"),
		cl("c2-wildfires", "Veloria", "Dorsk", "Veloria and Dorsk share a firefighting helicopter contract.", "ch-25", "ch-06"),
		// Coastal climate.
		cl("c1-coastal-climate", "Storm Ilse", "", "Storm Ilse caused damage estimated at 310 million crowns in November 2022.", "ch-26"),
		cl("c1-coastal-climate", "coastal adaptation plan", "low-lying villages", "The plan includes managed retreat for two low-lying villages.", "ch-26"),
		cl("c1-coastal-climate", "Storm Ilse", "Kessa Isles", "The Kessa Isles lost power for four days after the storm.", "ch-26", "ch-17"),
		// Marine science.
		cl("c2-marine-science", "Aldren marine laboratory", "herring survey", "The lab's long-term herring survey informed the 2017 quota reform.", "ch-27", "ch-18"),
		cl("c2-marine-science", "Aldren marine laboratory", "fisheries agency", "The laboratory advises the fisheries agency on stock assessments.", "ch-27"),
		cl("c2-marine-science", "marine heatwaves", "drought years", "The laboratory documented marine heatwaves during the drought years.", "ch-27"),
		// Engineering.
		cl("c2-engineering-school", "School of Engineering", "offshore renewables", "The school opened an offshore renewables programme in 2016.", "ch-28"),
		cl("c2-engineering-school", "employers", "electricians", "Employers say the school cannot train enough electricians.", "ch-28", "ch-14"),
		cl("c2-engineering-school", "School of Engineering", "port automation", "A port automation programme started in 2018 as part of the strike settlement.", "ch-28", "ch-03"),
		// Student housing.
		cl("c2-student-housing", "student union survey", "rent", "A third of students paid more than half their income on rent in 2022.", "ch-29"),
		cl("c2-student-housing", "Aldren University", "student beds", "The university began building 1,200 beds on a former rail yard in 2023.", "ch-29"),
		cl("c2-student-housing", "Lantern Quarter landlords", "student lets", "Landlords converted family flats into student lets.", "ch-29", "ch-31"),
		// Research partnerships.
		cl("c2-research-partnerships", "Aldren University", "Minase Institute", "A 2017 memorandum covers tidal energy, ocean sensors and student exchange.", "ch-30"),
		cl("c2-research-partnerships", "アルドレン大学", "水無瀬研究所", "両機関は毎年十名の学生を交換している。", "ch-30"),
		cl("c2-research-partnerships", "Aldren University", "Dorsk universities", "Aldren joined a doctoral network on coastal resilience after Storm Ilse.", "ch-30", "ch-26"),
		// Lantern Quarter.
		cl("c2-lantern-quarter", "Lantern Quarter", "Haiyun", "Lantern Quarter trading houses brokered much of the seafood trade with Haiyun.", "ch-31", "ch-07"),
		cl("c2-lantern-quarter", "灯笼节", "卡尔德港", "灯笼节已成为全市性的节日。", "ch-31", "ch-36"),
		cl("c2-lantern-quarter", "community groups", "protected tenancies", "Community groups campaigned for protected tenancies as rents rose.", "ch-31", "ch-33"),
		// Outer-island migration.
		cl("c2-outer-island-migration", "Tull", "population", "Tull's population fell by 22 percent between the 2011 and 2021 censuses.", "ch-32"),
		cl("c2-outer-island-migration", "Port Calder", "population", "Port Calder's population grew by 18 percent over the same period.", "ch-32"),
		cl("c2-outer-island-migration", "remote work", "outer islands", "Remote work during the pandemic slowed the decline and some families moved back.", "ch-32"),
		// Housing crisis.
		cl("c2-housing-crisis", "Port Calder house prices", "", "House prices rose about 70 percent between 2014 and 2023.", "ch-33"),
		cl("c2-housing-crisis", "Housing Commission", "short-term lets", "The 2023 commission recommended limits on short-term lets in the old town.", "ch-33"),
		cl("c2-housing-crisis", "Housing Commission", "new homes", "The commission called for 8,000 new homes.", "ch-33"),
		// Climate Act.
		cl("c2-climate-act", "2018 Climate Act", "net zero", "The act set a legally binding net-zero target for 2040.", "ch-34"),
		cl("c2-climate-act", "climate council", "ferry electrification", "The climate council pushed the government to accelerate ferry electrification.", "ch-34", "ch-04"),
		cl("c2-climate-act", "2023 amendment", "municipalities", "A 2023 amendment added adaptation duties for municipalities.", "ch-34", "ch-26"),
		// Fiscal policy.
		cl("c2-fiscal-policy", "public debt", "", "Public debt rose from 38 to 55 percent of GDP over the decade.", "ch-35"),
		cl("c2-fiscal-policy", "2022 budget", "carbon levy", "The 2022 budget introduced a carbon levy on fuel imports with half the revenue returned as rebates.", "ch-35"),
		cl("c2-fiscal-policy", "rural rebate", "outer-island households", "A rural rebate was added after criticism that the levy hit outer islands hardest.", "ch-35", "ch-41"),
		// Culture.
		cl("c1-culture", "Velorian language", "school curriculum", "The Velorian language gained a television channel and a school curriculum in 2019.", "ch-36"),
		cl("c1-culture", "maritime museum", "Calder Quay", "A maritime museum opened on Calder Quay in 2022.", "ch-36", "ch-09"),
		cl("c1-culture", "harbour festival", "", "The harbour festival drew record crowds in 2023.", "ch-36"),
		// Deliberate orphans: assigned to communities that are not leaves, so a
		// search must count them in orphanClaims and never collect them (docs/contract.md#map-text).
		cl("c2-offshore-wind", "offshore wind", "electricity demand", "Offshore wind supplies about half of Veloria's electricity demand.", "ch-13"),
		cl("c1-drought", "drought", "reservoirs", "Marenna's reservoirs fell to a fifth of capacity in 2020.", "ch-22"),
	}
}

func ch(id, doc, text string) globalsearch.Chunk {
	return globalsearch.Chunk{ID: id, DocumentID: doc, Text: text}
}

func chunks() []globalsearch.Chunk {
	return []globalsearch.Chunk{
		ch("ch-01", "doc-harbour-authority-annual-2016", "The second berth at the container terminal will be financed by the Harbour Authority's own reserves, a loan from the Velorian Development Bank and the sale of a 24 percent stake in the terminal operating company to Haiyun Ocean Logistics. The Authority retains a golden share governing berth allocation. Throughput this year reached 214,000 TEU."),
		ch("ch-02", "doc-harbour-authority-annual-2021", "Despite the drought and the pandemic, container throughput recovered to 352,000 TEU, with cargo linked to Haiyun shipping lines making up about a third of the total. Passenger traffic remained two thirds below its 2019 level during the 2020 lockdown, and the port stayed open throughout."),
		ch("ch-03", "doc-dockers-bulletin-2018", "After eleven days on strike we have won a guarantee: no member loses work because of the automated yard. Every one of the 140 affected colleagues will be redeployed or retrained at the new centre run with Aldren's engineers. A joint safety committee meets monthly from April."),
		ch("ch-04", "doc-ferry-tender-2019", "The Harbour Authority invites bids for two battery-electric ferries for the Ostrel and Kessa routes, charged from shore power at each terminal. Operating experience from the first electric vessel shows energy costs below half of diesel. The Tull pier lacks grid capacity for fast charging, so a hybrid design is specified for that route."),
		ch("ch-05", "doc-cruise-council-2023", "Council resolves to limit cruise calls at Port Calder to 90 per year, down from a peak of 121 in 2019, and to require vessels staying overnight to connect to shore power from 2024. The old town association reports that spending per visitor has risen since arrivals were spread through the season."),
		ch("ch-06", "doc-dorsk-partnership-agreement-2016", "The Parties shall eliminate customs duties on originating goods listed in Annex I, covering approximately ninety percent of bilateral trade, and shall establish a Joint Fisheries Committee. Disputes shall be referred to an arbitration panel of three members. The Parties shall cooperate on civil protection, including shared aerial firefighting capacity."),
		ch("ch-07", "doc-haiyun-commerce-bulletin-2018", "海云市商务局公告：我市与维洛里亚签署海产品卫生协议，维洛里亚加工企业可直接为出口产品出具证明。海云远洋物流已持有卡尔德港码头百分之二十四的股份，每周有两条航线往返。灯笼街区的贸易行负责大部分合同的中文洽谈。"),
		ch("ch-08", "doc-arbitration-ruling-2021", "The Panel finds that the Republic of Dorsk has not demonstrated serious injury to its domestic salted-fish industry and that the safeguard duty of 18 percent imposed in February 2020 is inconsistent with Article 7. The duty shall be withdrawn within thirty days. The Panel notes submissions that several processors on the Kessa Isles ceased trading during the period."),
		ch("ch-09", "doc-calder-quay-review-2022", "Seven years after opening in a former fish warehouse, the Calder Quay incubator hosts about sixty firms, twelve of which have raised outside capital. Firms built on Aldren University research show markedly higher survival. Rents on the quay have risen sharply since 2021 and several teams have moved to cheaper space on Ostrel."),
		ch("ch-10", "doc-tidepay-press-2023", "Tidepay (潮付), founded in 2017 by two Aldren graduates who grew up in the Lantern Quarter, now carries about one fifth of all remittances between Veloria and Haiyun. Following the central bank's 2020 licensing rules, the company rebuilt its anti-money-laundering checks. 我们让汇款更便宜、更快捷。"),
		ch("ch-11", "doc-brinewatch-profile", "Brinewatch grew out of a student project in the Aldren marine laboratory in 2016. Its solar-powered buoys report temperature, salinity and dissolved oxygen every ten minutes to fish farms and wind-farm operators. Monitoring around Sorrel Bank found no measurable change in the herring spawning grounds."),
		ch("ch-12", "doc-growth-fund-audit-2023", "The Veloria Growth Fund committed 31 million crowns to Skylark Water, including contracts awarded in 2020 without open tender. The audit found that technical due diligence was not performed and that two board members had undeclared interests. Skylark's modular units failed field tests on the outer islands and the company entered administration in 2022."),
		ch("ch-13", "doc-sorrel-bank-commissioning-2020", "Veloria Energi and its partners today commissioned the 42 turbines of Sorrel Bank phase one, 30 kilometres north-west of Marenna. A second phase of 30 turbines will bring capacity to about 600 megawatts. Static-gear fishing will be permitted between turbines. Part of the output is contracted to the new desalination plant at Port Calder."),
		ch("ch-14", "doc-ostrel-supply-chain-study", "The blade finishing plant and tower yard at Ostrel Sound employ about 450 people. Both rely on apprentices trained with Aldren University, and both report a shortage of qualified electricians. A one-year delay to Sorrel Bank phase two led one yard to lay off a third of its workforce in 2022."),
		ch("ch-15", "doc-kessa-tidal-pilot-report", "ケッサ海峡の潮流発電実証では、四基のタービンが2018年から安定して発電した。しかし発電単価は洋上風力の約三倍であり、政府は2023年に本格導入ではなく研究拠点として継続することを決定した。The pilot is run jointly with the Minase Institute of Ocean Engineering."),
		ch("ch-16", "doc-energy-regulator-northern-link", "The Northern Link, a 140-kilometre subsea cable between Marenna and Dorsk, entered commercial operation in 2021, allowing the closure of the diesel reserve plant at Port Calder. Two cable faults in the winter of 2022 caused rolling power cuts across Marenna. The regulator has asked for a study of a second interconnector."),
		ch("ch-17", "doc-microgrid-evaluation-2022", "On Tull and the Kessa Isles, microgrids combining small wind turbines, solar panels and batteries now cover most demand, reducing diesel use by about 80 percent. Residents' cooperatives own a share of the assets. The Tull harbour connection remains too weak for fast ferry charging. After Storm Ilse the Kessa Isles were without power for four days."),
		ch("ch-18", "doc-fisheries-white-paper-2017", "The Government proposes to replace annual licences with transferable quotas of ten years, allocated by catch history, and to reduce the total allowable catch of cod by thirty percent over three years, following the herring and cod surveys of the Aldren marine laboratory. A review in 2022 added a community quota reserve for small boats; by 2023 five companies held over half the cod quota."),
		ch("ch-19", "doc-aquaculture-census-2022", "Licensed aquaculture sites rose to 124 in 2022, mostly kelp and blue mussels in the sounds of Ostrel and the Kessa Isles. About half of farm operators are former fishers supported by the retraining grant. Mussel mortality was severe in the summer of 2020 during marine heatwaves."),
		ch("ch-20", "doc-grey-shoals-joint-minutes-2023", "The delegations of Veloria and Dorsk agree to establish a joint management zone at the Grey Shoals with shared herring quotas and joint patrols, without prejudice to either Party's position on sovereignty. The delegations recall the detentions of fishing vessels in 2015 and 2019. Fishers' representatives also raised access near wind turbines."),
		ch("ch-21", "doc-cold-chain-haiyun-report", "卡尔德港冷链中心于2018年启用，冷冻鲱鱼和贻贝可以用冷藏集装箱直接运往海云，每吨出口价值提高约四分之一。2021年海云因标签错误暂停进口贻贝六周。2022年海底电缆故障导致停电，一批货物变质，此后安装了备用发电机。"),
		ch("ch-22", "doc-water-board-notice-2020", "From 1 August 2020 the Port Calder water board will interrupt supply between 23:00 and 05:00 and prohibits garden watering and car washing. Reservoirs on Marenna stand at one fifth of capacity. Leakage in the network is estimated at one third of treated water; a pipe replacement programme will follow. Consumption has since fallen by about a quarter."),
		ch("ch-23", "doc-desalination-plant-report-2021", "The reverse-osmosis plant at Port Calder opened in 2021 and now supplies about a third of the city's water, powered by wind electricity purchased under a fifteen-year contract. Modular units bought from Skylark Water for the outer islands did not meet specification and have been replaced by units from an established Dorsk supplier."),
		ch("ch-24", "doc-ostrel-farmers-survey-2021", "Potato yields on Ostrel fell by 40 percent in 2020 compared with the five-year average, and many sheep farmers sold animals they could not feed. Members of the new water cooperative now irrigate with treated wastewater, and a drip-irrigation grant has been widely taken up. Several farms have trialled drought-tolerant barley."),
		ch("ch-25", "doc-fire-service-review-2021", "The July 2021 fires burned about 9,000 hectares of heath and forest in the Marenna uplands and required the evacuation of three villages. The service lacked upland vehicles and depended on volunteers. We recommend a dedicated wildfire unit, firebreaks, grazing plans and a helicopter contract shared with Dorsk."),
		ch("ch-26", "doc-storm-ilse-assessment-2022", "Storm Ilse brought the highest surge on record to Port Calder on 14 November 2022, flooding the old harbour and the fish market and damaging the Tull ferry pier. Total damage is estimated at 310 million crowns. The coastal adaptation plan proposes sea walls for Port Calder and managed retreat for two low-lying villages."),
		ch("ch-27", "doc-aldren-marine-lab-annual", "The marine laboratory continued its long-term herring survey and provided stock assessments to the fisheries agency. In 2020 we recorded two marine heatwaves that coincided with mussel die-offs in the sounds. Former students founded Brinewatch, and our sensor designs are licensed to several incubator firms."),
		ch("ch-28", "doc-aldren-engineering-prospectus", "The School of Engineering offers degrees in offshore renewables (since 2016) and port automation (since 2018), with apprenticeships at the Ostrel wind yards and the Marenna shipyard. Employers consistently report that demand for electricians exceeds the number of graduates we can train."),
		ch("ch-29", "doc-student-union-housing-survey-2022", "One student in three pays more than half of their income on rent, and some commute daily by ferry from Ostrel. Family flats in the Lantern Quarter are increasingly let to students. The university has announced 1,200 new beds on the former rail yard, with construction starting in 2023."),
		ch("ch-30", "doc-minase-aldren-mou-2017", "Memorandum of Understanding between Aldren University and the Minase Institute of Ocean Engineering: cooperation in tidal energy, ocean sensing and student exchange. 両機関は毎年十名の学生を相互に派遣し、ケッサ海峡で共同研究を行う。 In 2023 Aldren also joined a doctoral network with universities in Dorsk on coastal resilience."),
		ch("ch-31", "doc-lantern-quarter-oral-history", "我爷爷从海云来到卡尔德港，开了一家贸易行。 My grandfather came from Haiyun and opened a trading house; today my cousins still handle herring contracts in Mandarin. The Lantern Festival used to be our own; now the whole city comes. But rents have doubled, flats are let to students, and old neighbours have left."),
		ch("ch-32", "doc-census-2021", "Between the 2011 and 2021 censuses the population of Tull fell by 22 percent and that of the Kessa Isles by 15 percent, while Port Calder grew by 18 percent. The median age on Tull is now 54. Small salted-fish processors on the Kessa Isles have closed. Net out-migration slowed after 2020, with some families returning to work remotely."),
		ch("ch-33", "doc-housing-commission-2023", "House prices in Port Calder have risen by about 70 percent since 2014. The Commission recommends 8,000 new homes over eight years, a cap on short-term tourist lets in the old town, and protected tenancies in the Lantern Quarter, where community groups have documented displacement of long-standing families."),
		ch("ch-34", "doc-climate-act-2018", "The Climate Act 2018 sets a target of net-zero greenhouse gas emissions by 2040, five-year carbon budgets and an independent Climate Council. The Council's first report urged faster ferry electrification and the interconnector. The 2023 amendment requires every municipality to adopt an adaptation plan."),
		ch("ch-35", "doc-budget-speech-2022", "Public debt now stands at 55 percent of GDP, up from 38 percent in 2014, after drought relief, pandemic support and storm repairs. This budget introduces a carbon levy on imported fuels; half of its revenue returns to households as energy rebates, and a climate resilience fund will finance sea walls and water infrastructure."),
		ch("ch-36", "doc-festival-programme-2023", "This year's harbour festival drew record crowds, and the Lantern Festival (灯笼节) procession now runs the length of Calder Quay. Performances in the Velorian language, taught in schools since 2019, open the programme. The maritime museum, opened in 2022 in a restored warehouse, offers free entry during the festival."),
	}
}

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

// events is the hand-written account of each year, in order.
var events = []string{
	"The decade opened quietly. Port Calder was still a fishing harbour with a container quay attached, and the Harbour Authority's new chair, Maren Vollan, spent her first months touring the breakwaters and listening to complaints about silted berths. The old diesel reserve plant behind the timber wharf supplied the cranes and much of the city at night. Talks with the Development Bank about a second deep-water berth began in the autumn, but few people outside the Authority expected them to succeed, and the local newspaper called the plan 'a harbour built on hope'.",
	"Dredging of the approach channel started in April and ran late because of an unusually stormy spring. The Calder Quay incubator opened in a former fish warehouse on the north side, a move the Authority described as a bet that the port could host ideas as well as cargo. Boats from Veloria and Dorsk were detained at the Grey Shoals in the summer, and for several weeks the fish market ran short of herring. By December the Authority had a financing plan for the new berth but still lacked a partner willing to take an equity stake.",
	"The partner arrived from Haiyun. In March the Authority sold 24 percent of the terminal operating company to Haiyun Ocean Logistics, keeping a golden share over berth allocation, and two Haiyun shipping lines announced weekly calls. Parliament debated foreign influence for three days before approving the deal. In the same year Veloria signed its Economic Partnership Agreement with Dorsk, and hauliers queued at the customs sheds on the first morning of duty-free trade. Brinewatch tested its first sensor buoy from a pontoon in the inner basin.",
	"Construction dominated the year. Piling rigs worked through the winter on the second berth, and two ship-to-shore cranes arrived from abroad on a heavy-lift vessel in September, drawing crowds to the harbour wall. The 2017 Fisheries Act changed the mood on the fish quay: many small boat owners feared the new transferable quotas, and several sold their licences within months. Tidepay, a payments start-up founded by two graduates from the Lantern Quarter, rented its first office overlooking the ferry terminal.",
	"The automated stacking yard went live in February, and in March the Calder Dockworkers' Union walked out for eleven days. Ships waited at anchor in the roads, and the fish processors ran out of reefer capacity. The settlement promised every affected worker redeployment or retraining and created a training centre with Aldren University. In the summer the cold-storage hub opened beside the terminal, and the first reefer containers of frozen herring left for Haiyun. The tidal pilot in the Kessa Strait was assembled on the heavy-lift quay before being towed out.",
	"This was the busiest year the port had seen. Cruise calls peaked at 121, the old town was crowded from May to September, and residents began to complain about fumes from ships at berth. The first battery-electric ferry entered service on the Ostrel route in June, charged from a new shore-power station. The summer was dry, and by October the water board was warning that reservoirs were unusually low. Boats were again detained at the Grey Shoals, and the blade plant at Ostrel shipped its first finished blades through Port Calder.",
	"The pandemic arrived in March. The ferry timetable was cut to essential crossings, cruise ships disappeared, and the Authority kept the cargo terminal open with crews working in fixed teams. Dorsk's safeguard duty on salted fish hit the Kessa Isles processors who shipped through the port. In August the water board introduced overnight rationing, and the fish market hosed its floors with seawater. Sorrel Bank's first turbines were commissioned in the autumn, and the installation vessels used the heavy-lift quay as their base.",
	"Recovery was uneven. Container volumes rebounded strongly as shipping lines rerouted through Port Calder, but cruise traffic returned only in October. The Northern Link interconnector entered service, the old diesel reserve plant behind the timber wharf was switched off for good, and the desalination plant opened on reclaimed land south of the terminal, allowing rationing to end in April. In June the arbitration panel ruled against Dorsk's salted-fish duty. Haiyun suspended mussel imports for six weeks over a labelling error, and reefer boxes stacked up on the quay.",
	"Winter cable faults on the Northern Link caused rolling power cuts, and one reefer shipment to Haiyun spoiled before backup generators could be connected. The Authority installed permanent generators at the cold store in the spring. Then, on 14 November, Storm Ilse brought the highest surge on record. Water poured over the old harbour wall, flooded the fish market and the maritime museum, which had opened only months earlier, and tore away part of the Tull ferry pier. The terminal itself, built on higher ground, lost only two days of work.",
	"Repairs and plans took most of the year. The government's coastal adaptation plan included sea walls for the old harbour, and engineers began surveying the foundations of the timber wharf. The city council capped cruise calls at 90 a year and set a deadline for shore power. The second phase of Sorrel Bank was completed, and the Grey Shoals joint management zone was signed in a ceremony on a Dorsk patrol vessel moored at the Authority's pontoon. Container throughput passed 400,000 TEU for the first time.",
	"The decade closed with a port very different from the one it began with. Five of seven ferry routes were electric, cruise ships plugged into shore power overnight, and the container terminal handled more than twice its 2014 volume. Work began on the first section of the new sea wall. The Authority's annual report noted that a third of its cargo was linked to Haiyun, that fish landings had stabilised after years of decline, and that the port's electricity now came mostly from wind. Maren Vollan retired in December after ten years as chair.",
}

// Sentence banks chosen per year: each entry is written for that year.
var workforce = []string{
	"About 1,100 people worked directly for the port, most of them on the fish quay and in the processing sheds.",
	"The Authority hired its first environmental officer, partly to deal with complaints about dredging spoil.",
	"Crane drivers were sent to Dorsk for training on the new equipment, and the union asked for guarantees about the yard.",
	"Construction crews from Dorsk and Veloria worked side by side, and the canteen served three shifts a day.",
	"After the strike, a joint safety committee began meeting monthly, and the first retrained yard workers qualified as automation technicians.",
	"Seasonal staff for the cruise season were hard to find because rents in the old town had risen sharply.",
	"Dockworkers were organised in fixed teams to limit infection, and no shift was cancelled for lack of crew.",
	"Many ferry crew members retrained to operate battery systems as more routes were converted.",
	"Volunteers from the dockworkers' union helped clear the fish market after the storm.",
	"The training centre run with Aldren University reported that most former yard workers now maintained automated equipment.",
	"The Authority's workforce was smaller than in 2014 but better paid, and a quarter of its engineers were Aldren graduates.",
}

var environment = []string{
	"Water quality in the inner basin was poor after decades of untreated discharges from the processing sheds.",
	"Storms in the spring delayed dredging, and the spoil was later used to build up reclaimed land south of the quay.",
	"Monitoring buoys placed in the basin that year gave the first continuous record of temperature and oxygen in the harbour.",
	"Noise from night-time piling prompted complaints from the Lantern Quarter, and work hours were limited.",
	"The cold store was built with heat recovery from its refrigeration plant, which warmed the neighbouring offices.",
	"Air-quality readings in the old town exceeded guidelines on several summer days when more than two cruise ships were in port.",
	"Reservoir levels fell to a fifth of capacity, and the port stopped washing down quays with fresh water.",
	"Harbour seals were seen in the basin again, which the marine laboratory attributed to cleaner discharges and fewer ship movements during the pandemic.",
	"The surge from Storm Ilse left salt damage in electrical installations along the old harbour.",
	"Engineers modelled a rise in extreme sea levels of up to half a metre by mid-century when designing the new sea wall.",
	"Shore power and electric ferries cut the port's measured emissions by about 60 percent compared with 2014.",
}

var community = []string{
	"Fishing families still set the rhythm of the harbour, and the early-morning auction was the city's busiest gathering.",
	"Residents of the north quay worried that the incubator would bring higher rents, a fear that proved justified later in the decade.",
	"The Lantern Quarter's trading houses celebrated the Haiyun deal with a banquet, while some fishers felt the port was turning its back on them.",
	"Children from local schools were invited to watch the cranes arrive, and the event became a small festival.",
	"The strike divided opinion in the city, but a fund for strikers' families raised more money than organisers expected.",
	"Shopkeepers in the old town enjoyed record takings, though many residents avoided the centre on cruise days.",
	"Neighbours in the Lantern Quarter delivered food to quarantined crews, and the harbour festival was cancelled for the first time since the war.",
	"The end of rationing in April was marked by an open day at the desalination plant, attended by several thousand people.",
	"The storm forced the evacuation of houses behind the old harbour wall, and the Lantern Quarter opened its community hall as a shelter.",
	"Residents were consulted on the design of the sea wall, and many asked that it include a public promenade.",
	"The harbour festival returned at full size, and the Lantern Festival procession ran the length of Calder Quay for the first time.",
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

// more is a second hand-written paragraph for each year: what happened away
// from the headline figures.
var more = []string{
	"Away from the headlines, the harbour's routines continued much as they had for a generation. The fish auction opened at five, the ferries left on the hour for Ostrel, and the repair yard at the end of the timber wharf kept a fleet of wooden trawlers afloat with parts salvaged from older boats. The Authority's engineers published a frank survey showing that three of the port's five quays needed rebuilding within fifteen years. Shipping agents complained that Port Calder was losing transhipment business to Dorsk because ships could not be turned around quickly enough, and that the customs office closed too early in the evening.",
	"The incubator's first tenants were a handful of engineers from Aldren University, a designer of fishing apps and a small firm repairing marine electronics. The Authority charged them a nominal rent, arguing that activity on the quay was worth more than income. Meanwhile the Dorsk detentions at the Grey Shoals became a diplomatic matter, and the foreign ministry summoned the Dorsk ambassador. Fishermen's wives organised a protest on the harbour steps, and the fisheries minister promised talks. Tonnage through the port grew slowly, but the Authority's balance sheet was strong enough to borrow.",
	"The Haiyun agreement changed the rhythm of the terminal. Larger ships arrived on a fixed weekly schedule, and the Authority extended working hours to turn them around overnight. Customs officers were trained in Haiyun's certification rules, and the Lantern Quarter's trading houses hired young graduates who could draft contracts in both Mandarin and Velorian. The first duty-free lorries to Dorsk carried potatoes and wool from Ostrel. Critics warned that Port Calder was becoming dependent on one foreign partner, a warning the Authority acknowledged in its annual report while arguing that the alternative was slow decline.",
	"For the port's neighbours it was a noisy year. Piling rigs hammered into the seabed from dawn, and the Authority set up a hotline for complaints. Aldren University opened its offshore renewables programme, and its first students used the construction site as a classroom, measuring vibration and sediment plumes. The quota reform reduced the number of boats on the fish quay, and the auction house began selling part of its catch online to buyers on the mainland of Dorsk. Insurance costs for the construction rose after a crane barge broke its moorings during an autumn gale.",
	"The strike was the longest in the port's history. Pickets gathered at the terminal gate each morning, and the fish processors, unable to ship, laid off temporary staff. Negotiations were held in the Aldren University senate hall, chosen as neutral ground, and the university's rector was credited with suggesting the training centre that broke the deadlock. Once the yard was running, the terminal could handle ships faster than ever, and two more shipping lines added Port Calder to their rotations. The cold store's opening meant that frozen fish could be shipped year-round rather than salted.",
	"The cruise boom brought money and friction in equal measure. On some days three ships were alongside at once and six thousand passengers crowded the old town, whose streets were built for carts. The council commissioned a study of the trade's costs and benefits. Down on the fish quay, the electric ferry's quiet departures became a small attraction in their own right. The dry autumn foreshadowed the drought: water pressure at the quays dropped, and the fire service warned the Authority to keep its tanks full. Grey Shoals detentions again strained relations with Dorsk.",
	"Life at the port narrowed to essentials. The passenger terminal was turned into a testing centre, the cruise quay sat empty, and the Authority lent its offices to the health service. Ships still came, and dockworkers kept the country supplied with food and medicine. The salted-fish duty imposed by Dorsk left warehouses full of unsold stock, and several Kessa Isles processors gave up. When rationing began, the cold store and the ferries were given priority for water. The commissioning of Sorrel Bank was one of the few pieces of good news, and the installation crews became a familiar sight in the harbour bars.",
	"The reopening brought its own problems. Shipping lines rerouted through Port Calder to avoid congestion elsewhere, and the terminal worked at capacity for months. The desalination plant's opening ended the long months of rationing and was celebrated with a public open day. The arbitration ruling against Dorsk was welcomed on the fish quay, though it came too late for several firms. The Haiyun mussel suspension showed how quickly a single paperwork error could stop a trade, and the Authority set up a certification help desk staffed by Lantern Quarter bilingual advisers.",
	"The year tested the port's resilience twice. The winter power cuts revealed how much depended on a single cable, and the Authority bought generators for the cold store, the control tower and the shore-power station. Storm Ilse then showed the limits of the old harbour. Emergency crews worked through the night to pump out the fish market, and the ferry to Tull was suspended for three weeks while the pier was repaired. The Authority's own losses were covered by insurance, but many small businesses in the old harbour were not insured against flooding.",
	"Recovery became an opportunity. The sea-wall design included a public promenade, flood gates and a raised fish market, and the Authority won funding from the new climate resilience fund. The cruise cap forced the Authority to choose which lines to accept, and it favoured ships equipped for shore power. The Grey Shoals agreement eased the tension that had shadowed the fish quay since 2015. Cargo volumes passed a symbolic milestone, and the Authority's annual report spoke for the first time of Port Calder as a logistics hub rather than a fishing port.",
	"The final year was one of consolidation. The container terminal ran smoothly, the electric ferries ran on schedule, and the fish quay, smaller than in 2014, sold more of its catch fresh and at higher prices. The Authority began planning a third berth, this time with a stake offered to a Dorsk pension fund as well as to Haiyun. Maren Vollan's farewell speech thanked the dockworkers, the islanders and the Lantern Quarter, and warned that the next decade's challenge would be rising seas rather than rising cargo.",
}

// quotes gives each year one voice from the harbour.
var quotes = []string{
	"'We have a port that could be great and a budget that could be smaller,' the Authority's chief engineer told the annual meeting.",
	"'The incubator is cheap, warm and ten metres from the water, which is all an engineer needs,' said one of its first tenants.",
	"'We kept the key to the door,' the transport minister said of the golden share, 'and we let a partner help pay for the house.'",
	"'My father fished for forty years; I sold my quota in forty minutes,' one Kessa Isles skipper told a radio reporter.",
	"'Nobody will be thrown off this quay by a machine,' the union's negotiator said when the settlement was signed.",
	"'On a good day we sell more ice cream than herring,' joked the owner of a café on the passenger quay.",
	"'The port never closed, because the islands cannot live without it,' the harbourmaster wrote in his year-end letter.",
	"'Fresh water from the sea, with wind from the sea: that is Veloria,' the prime minister said at the plant's opening.",
	"'The water came over the wall like the wall was not there,' a fish-market trader recalled after the storm.",
	"'We are building the wall for our grandchildren, and we should build it with them in mind,' a city councillor said.",
	"'We leave the port busier, cleaner and more exposed than we found it,' Maren Vollan said in her farewell speech.",
}

// ships is a note on the vessels that marked each year.
var ships = []string{
	"The largest vessel to call was the feeder ship Northern Tern, with 1,100 containers aboard.",
	"The dredger Sand Lark spent seven months in the approach channel, removing enough sediment to fill the old town square a hundred times.",
	"The Haiyun line's first ship, the Jade Current, was welcomed with fireboats and a lion dance on the quay.",
	"The heavy-lift vessel Storm Petrel delivered the two cranes, each taller than the cathedral spire.",
	"The first reefer ship bound directly for Haiyun, the Cold Meridian, loaded 240 containers of frozen herring.",
	"The ferry Ostrel Light, Veloria's first battery-electric vessel, made its maiden crossing in thirty-five minutes.",
	"The turbine installation vessel Sea Architect became the most photographed ship in the harbour.",
	"The cruise ship that ended the long pause, the Aurora Bay, arrived in October with fewer than half its berths filled.",
	"The Tull ferry Kittiwake rode out Storm Ilse at anchor in the lee of Marenna after the pier was damaged.",
	"The Dorsk patrol vessel Vigil hosted the signing of the Grey Shoals agreement at the Authority's pontoon.",
	"The last diesel ferry on the Kessa route, the Old Marenna, was retired and sold to a museum trust.",
}

// energy is a note each year on how the port got its power.
var energy = []string{
	"Almost all of the port's electricity came from the diesel reserve plant and imported fuel oil.",
	"The Authority installed LED lighting on the quays, its first energy-saving measure.",
	"A study of shore power for ferries was commissioned, with funding from the energy ministry.",
	"Solar panels were fitted to the roofs of the customs sheds, supplying a tenth of the office demand.",
	"The cold store was designed to run on electricity alone, anticipating a cleaner grid.",
	"The shore-power station for the electric ferry was the first high-voltage connection on the quay.",
	"The port began buying power from Sorrel Bank under a green tariff as the first turbines came online.",
	"With the interconnector in service, the diesel reserve plant behind the timber wharf closed permanently.",
	"Backup generators were installed after the cable faults, a reminder that the new grid still had weak points.",
	"Shore power for cruise ships was ordered for the passenger quay, to be ready for the 2024 season.",
	"By the end of the year about 80 percent of the port's electricity came from wind, much of it from Sorrel Bank.",
}

// themes closes the chronicle with a thematic reading of the decade.
var themes = []string{
	"Trade and partners. Port Calder entered the decade as a harbour serving Veloria and left it as a node in two trading systems. The partnership agreement with Dorsk made the short crossing over the Narrows the busiest lorry route in the country, carrying vegetables, wool and processed fish one way and machinery the other. The Haiyun connection, built on the terminal stake, the cold store and the brokers of the Lantern Quarter, tied the port to longer routes and higher-value cargo. The two relationships tested the port in different ways: Dorsk through the salted-fish duty and the Grey Shoals, Haiyun through concentration of risk and the brief mussel suspension. Officials drew the lesson that diversity of partners is itself a form of security.",
	"Fishing and the fish quay. The fish quay shrank in volume but not in importance. Landings fell by a fifth between 2014 and 2020 as cod and herring stocks declined and the quota reform took effect, and they recovered only partly afterwards. Ownership of quota concentrated in a few firms, while small boat owners left the trade or turned to kelp and mussel farming. Yet the value of what was landed rose, because the cold store and direct exports to Haiyun allowed fish to be sold frozen or fresh rather than salted. The fish auction, once the heart of the harbour, became one business among many, and its future depends on the raised market planned behind the new sea wall.",
	"Energy. No part of the port changed more than its power supply. In 2014 the cranes, the cold rooms and the ferries all ran on imported oil. By 2024 the ferries ran on batteries charged from shore, cruise ships connected to the grid overnight, and the port's electricity came mostly from Sorrel Bank. The interconnector to Dorsk allowed the old diesel plant to close, but the winter cable faults of 2022 showed that the new system had its own vulnerabilities. The Authority's engineers now speak of resilience as much as of emissions, and the generators bought after the faults remain on standby.",
	"Work and skills. The port's workforce changed in composition more than in size. Manual jobs in the stacking yard and on the fish quay declined, while jobs in maintenance, automation, energy systems and logistics grew. The strike of 2018 was the decade's sharpest conflict, and its settlement set a pattern that later projects followed: change accompanied by guaranteed retraining, delivered with Aldren University. Employers still report shortages of electricians and technicians, and the cost of housing in Port Calder makes it hard to recruit seasonal staff.",
	"Climate and water. The drought and the storm were the decade's two great shocks to the port, and both arrived from directions the plans of 2014 had barely considered. Rationing in 2020 and 2021 forced the port to save water and to give priority to the cold store and the ferries; the desalination plant on reclaimed land now protects the city against a repeat. Storm Ilse showed that the old harbour wall was no longer adequate, and the sea wall under construction in 2024 is designed for higher seas than any seen so far. Adaptation has become part of every investment decision the Authority makes.",
	"The city and its neighbourhoods. The port shaped the city around it. The incubator and the university brought young people to the north quay; the cruise boom crowded the old town and pushed up short-term lets; and the Lantern Quarter, long the port's link to Haiyun, felt the pressure of rising rents and student housing. Residents repeatedly asked to be consulted, and by the end of the decade the Authority held public meetings before every major project. The promenade on the new sea wall is the first port project designed as much for residents as for ships.",
	"Governance. The Harbour Authority itself changed. Under Maren Vollan it became more commercial, borrowing to build, selling a minority stake and courting shipping lines, but also more open, publishing environmental data and consulting neighbours. Parliament's debate over the Haiyun stake led to the golden share model that later guided foreign investment in the energy sector. The Authority's revenue more than doubled over the decade, and its debt, though higher than in 2014, is covered comfortably by income from the terminal.",
	"Outlook. The chronicle ends with open questions. Rising sea levels will require further spending on defences. A third berth would deepen the port's role as a logistics hub but also its reliance on distant partners. The fish quay must find a stable place in a smaller industry. And the balance between the port's needs and those of the people who live beside it will remain contested. What the decade has shown is that Port Calder can adapt quickly when it must; the challenge for the next decade is to adapt before it must.",
}

// policy notes the national decisions that reached the harbour each year.
var policy = []string{
	"In parliament, the port featured mainly in debates about the cost of fuel for the island ferries, which the state subsidised heavily.",
	"The government named Port Calder a national infrastructure priority, which allowed the Development Bank to lend on longer terms.",
	"Ministers defended the Haiyun stake as a commercial partnership and promised a review of foreign investment rules, which came two years later.",
	"The Fisheries Act passed by a narrow margin after a long night sitting, with members from the Kessa Isles voting against their own coalition.",
	"The Climate Act, passed that spring, obliged the Authority to publish a plan for cutting its emissions within two years.",
	"The climate council's first report singled out the ferries and the port's diesel plant as the quickest emissions cuts available.",
	"Emergency laws gave the transport ministry power to direct ferry schedules and to requisition cold storage for medical supplies.",
	"A foreign investment screening law, prompted partly by the Haiyun debate, required approval for stakes above ten percent in ports and power.",
	"After the storm the government promised that no coastal business would be left without help, though compensation took many months to arrive.",
	"The amended Climate Act required municipalities, and with them the port, to prepare adaptation plans with public consultation.",
	"The government's review of the decade's infrastructure spending called the port 'the best return on public money since the ferries were built'.",
}

// trade notes the cargo and partners behind each year's figures.
var tradeNotes = []string{
	"Most outbound cargo was salted fish, wool and potatoes, while inbound boxes carried fuel, machinery and food from Dorsk.",
	"Trade with Haiyun was still small and went mainly through transhipment in Dorsk, adding days to every journey.",
	"Tariff-free trade with Dorsk lifted lorry traffic on the Narrows ferry by a quarter within six months.",
	"Exports of processed fish to Dorsk rose strongly, while Haiyun buyers began asking for frozen rather than salted herring.",
	"Reefer exports to Haiyun started in the summer, and by December frozen herring had overtaken salted fish in value.",
	"Wind-turbine components, imported through the heavy-lift quay, became one of the port's fastest-growing cargoes.",
	"Salted-fish exports to Dorsk nearly stopped under the safeguard duty, while frozen exports to Haiyun held up.",
	"Mussel exports to Haiyun were interrupted for six weeks, and processors turned to Dorsk's fresh market to clear their stocks.",
	"Dried kelp became a regular export to Haiyun, loaded in dry containers alongside frozen fish.",
	"About a third of the terminal's cargo was linked to Haiyun lines, and Dorsk remained the largest partner by number of lorries.",
	"The port handled its first export cargo of towers from the Ostrel yard bound for a Dorsk wind farm.",
}
